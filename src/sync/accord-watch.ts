import type { WarehouseHandle } from '../warehouse/handle.ts';

/**
 * Which fragrances' accords a nightly's profiles show changed (a reformulation). Similar lists
 * are accord-based: such a fragrance's own list changed, so did every list that held it (its
 * score there moved) and some that did not (it may now be near enough to enter them). The
 * profile is read daily anyway, so this signal costs no call: the stored accords are read
 * once at the start, one short signature per fragrance.
 */
export class AccordWatch {
  private constructor(private readonly stored: Map<string, string>) {}

  static async load(warehouse: WarehouseHandle): Promise<AccordWatch> {
    const rows = await warehouse.query<{ id: string; names: string[]; strengths: number[] }>(
      `SELECT fragrance_id AS id, list(accord ORDER BY position) AS names,
         list(strength ORDER BY position) AS strengths
       FROM fragrance_accords GROUP BY fragrance_id`,
    );
    // The signature is made in one place from the values, never from SQL's text of a number.
    return new AccordWatch(
      new Map(
        rows.map((r) => [
          r.id,
          signature(r.names.map((name, i) => ({ name, strength: Number(r.strengths[i]) }))),
        ]),
      ),
    );
  }

  /** Whether a fetched profile's accords differ from the stored ones (false for one never stored). */
  changed(id: string, accords: readonly { name: string; strength: number }[]): boolean {
    const before = this.stored.get(id);
    const now = signature(accords);
    this.stored.set(id, now);
    return before !== undefined && before !== now;
  }
}

function signature(accords: readonly { name: string; strength: number }[]): string {
  return JSON.stringify(accords.map((a) => [a.name, a.strength]));
}
