/**
 * Bits per key, kept by a 32-bit hash of the key instead of the key itself: for sets that may
 * say "maybe" for a key never added (a superset), such as the loader's stored keys, where a
 * false "maybe" only costs a statement that finds nothing. Two keys of one hash share their
 * bits, so every bit set for a key is seen for it again, never one less.
 *
 * A Map from the id strings held each id a second time in the loader thread's heap (the
 * fetching thread has its own): about 13 MiB at 120k fragrances against 2 at 20k, a part of
 * the peak's growth with the catalogue (docs/benchmarks.md, session 12). Here a key is 8
 * bytes of two typed arrays at most half full: 2 MiB at 120k, outside the JS heap's
 * collections.
 */
export class KeyHashBits {
  /** Open addressing, linear probing; 0 is an empty slot (a hash of 0 is stored as 1). */
  private hashes = new Int32Array(1024);
  private bits = new Uint32Array(1024);
  private size = 0;

  /** The bits set for `key` (and for any key of the same hash). */
  get(key: string): number {
    const h = hashOf(key);
    const mask = this.hashes.length - 1;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const at = this.hashes[i]!;
      if (at === h) return this.bits[i]!;
      if (at === 0) return 0;
    }
  }

  /** Sets `bit` (a mask) for `key`. */
  set(key: string, bit: number): void {
    if ((this.size + 1) * 2 > this.hashes.length) this.grow();
    this.put(hashOf(key), bit);
  }

  private put(h: number, bit: number): void {
    const mask = this.hashes.length - 1;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const at = this.hashes[i]!;
      if (at === 0) {
        this.hashes[i] = h;
        this.bits[i] = bit;
        this.size++;
        return;
      }
      if (at === h) {
        this.bits[i] = this.bits[i]! | bit;
        return;
      }
    }
  }

  private grow(): void {
    const { hashes, bits } = this;
    this.hashes = new Int32Array(hashes.length * 2);
    this.bits = new Uint32Array(hashes.length * 2);
    this.size = 0;
    for (let i = 0; i < hashes.length; i++) if (hashes[i] !== 0) this.put(hashes[i]!, bits[i]!);
  }
}

/** FNV-1a over the key's UTF-16 code units, then a final mix (murmur3's) so that low bits vary. */
function hashOf(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h === 0 ? 1 : h;
}
