/** A small LRU map: bounded memory for lazily derived data on a 120k catalogue. */
export class Lru<K, V> {
  private readonly map = new Map<K, V>();
  constructor(private readonly capacity: number) {}

  get(key: K, make: () => V): V {
    let v = this.map.get(key);
    if (v !== undefined) {
      this.map.delete(key);
    } else {
      v = make();
      if (this.map.size >= this.capacity) {
        const oldest = this.map.keys().next().value;
        if (oldest !== undefined) this.map.delete(oldest);
      }
    }
    this.map.set(key, v);
    return v;
  }

  clear(): void {
    this.map.clear();
  }
}
