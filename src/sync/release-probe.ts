/**
 * Whether the service puts a day's releases into older similar lists, found out each night by
 * a few lists before paying for the guessed ones. The spec says similar lists are "by accord
 * profile"; whether and when a service recomputes other items' lists after a release is not
 * shown. Both readings are legal (the simulator has both: docs/simulator.md, similarLists):
 *
 * - live (recomputed): a release enters the lists it scores into (about 45 of 1,500 on the
 *   simulator's day), and an exact nightly must read them again;
 * - fixed at release: no older list takes it in, and reading them again buys nothing.
 *
 * A mover (a release, or a fragrance whose accords changed) has its own list read anyway. An
 * entry A of it with a score above the lowest score of A's stored list would have entered A's
 * list on the live reading (the score is symmetric: it compares two accord profiles).
 * Those lists, the surest first, are the probes: bought at once, at the new items' priority.
 * One that names the mover settles it: live, and every guessed list is owed. Three that
 * do not (and none that does) settle the other way: the guessed lists are not bought; the
 * weekly refresh of similar lists bounds what a wrong verdict could leave behind. A list read
 * in the run already is evidence as stored, not bought again (similar-signals.ts). Until the
 * verdict the guessed lists are held here; those still held when the run ends (a cap, a probe
 * that failed, too few probes) are stored as owed (SimilarSignals.settle), so no guess is lost.
 */
export type Verdict = 'unknown' | 'live' | 'fixed';

/** Probes bought per mover while the verdict is open. */
const PROBES_PER_MOVER = 3;
/** Probes that lack their mover, with none that names it, for the verdict 'fixed'. */
const ABSENT_FOR_FIXED = 3;

export class ReleaseProbe {
  private state: Verdict = 'unknown';
  /** Guessed lists per mover, held until the verdict. */
  private readonly held = new Map<string, string[]>();
  /** Probe list → the movers it should name on the live reading. */
  private readonly probes = new Map<string, Set<string>>();
  /** Movers whose own list offered no probe: their guesses are owed at once. */
  private readonly unprobed = new Set<string>();
  private absent = 0;
  /** How many probe lists were bought (for the log and the tests). */
  bought = 0;

  get verdict(): Verdict {
    return this.state;
  }

  /** A mover's guessed lists (from its profile): those to owe now; the rest wait for the verdict. */
  guessed(mover: string, lists: string[]): string[] {
    if (this.state === 'live' || this.unprobed.has(mover)) return lists;
    if (this.state === 'fixed') return [];
    this.held.set(mover, [...(this.held.get(mover) ?? []), ...lists]);
    return [];
  }

  /**
   * A mover's own list was read; `sure` are the entries that would have entered their stored
   * lists, surest first. Returns the probes to buy, or, when it offers none, its held guesses.
   */
  ownList(mover: string, sure: string[]): { probes: string[]; owe: string[] } {
    if (this.state !== 'unknown') return { probes: [], owe: [] };
    const picked = sure.filter((a) => !this.probes.has(a)).slice(0, PROBES_PER_MOVER);
    if (picked.length === 0) {
      this.unprobed.add(mover);
      return { probes: [], owe: this.take(mover) };
    }
    for (const a of picked) this.probes.set(a, new Set([mover]));
    this.bought += picked.length;
    return { probes: picked, owe: [] };
  }

  /** A similar list was read (`ids` its entries): evidence when it is a probe; the lists a verdict frees. */
  listRead(anchor: string, ids: readonly string[]): string[] {
    const expected = this.probes.get(anchor);
    if (!expected) return [];
    this.probes.delete(anchor);
    if (this.state !== 'unknown') return [];
    if ([...expected].some((m) => ids.includes(m))) {
      this.state = 'live';
      return [...this.held.keys()].flatMap((m) => this.take(m));
    }
    this.absent++;
    if (this.absent >= ABSENT_FOR_FIXED) {
      this.state = 'fixed';
      this.held.clear();
    }
    return [];
  }

  /** A probe's list proves nothing (its own fragrance was reformulated: recomputed on either reading). */
  listFailed(anchor: string): void {
    this.probes.delete(anchor);
  }

  /** The guesses still held (the run ends with no verdict): to be stored as owed. */
  takeHeld(): string[] {
    return [...this.held.keys()].flatMap((m) => this.take(m));
  }

  private take(mover: string): string[] {
    const lists = this.held.get(mover) ?? [];
    this.held.delete(mover);
    return lists;
  }
}
