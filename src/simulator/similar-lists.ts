/**
 * When a fragrance's similar list is computed: the change model's `similarLists` (types.ts).
 * 'live' computes every list from the catalogue of the moment. 'fixed' computes a list from
 * the catalogue of the day its fragrance was released or reformulated (the catalogue the day
 * started from for the others) and then only drops the entries discontinued since, so a
 * release enters no older list. A fixed list is not stored: the accord matrix of its day is
 * kept (a few typed arrays, about 7 MB at 120k fragrances) and the list computed from it on
 * request, as a live one is, so the similar cache stays bounded.
 */
import type { DayChanges } from './churn.ts';
import type { CatalogueData, FragranceRec } from './model.ts';
import { AccordMatrix } from './similar.ts';
import type { SimilarLists } from './types.ts';

export class ListEpochs {
  /** null while lists are live; else the matrix of the day the lists were first fixed. */
  private base: AccordMatrix | null = null;
  /** Matrices of later days, by catalogue version, and the version each refixed list has. */
  private readonly epochs = new Map<number, AccordMatrix>();
  private readonly fixedAt = new Map<number, number>();

  get fixed(): boolean {
    return this.base !== null;
  }

  /** Before a day's changes: a switch to 'fixed' fixes every list as the catalogue stands. */
  beforeDay(mode: SimilarLists, data: CatalogueData): void {
    if (mode === 'fixed' && this.base === null) this.base = new AccordMatrix(data);
    if (mode === 'live') this.base = null;
    if (mode === 'live') this.epochs.clear();
    if (mode === 'live') this.fixedAt.clear();
  }

  /** After them: the lists of the day's releases and reformulations are fixed as it ends. */
  afterDay(changes: DayChanges, data: CatalogueData, version: number): void {
    if (this.base === null) return;
    const refixed = [...changes.added, ...changes.accordsChanged];
    if (refixed.length > 0) this.epochs.set(version, new AccordMatrix(data));
    for (const f of refixed) this.fixedAt.set(f.idx, version);
    for (const f of changes.removed) this.fixedAt.delete(f.idx);
    const used = new Set(this.fixedAt.values());
    for (const v of this.epochs.keys()) if (!used.has(v)) this.epochs.delete(v);
  }

  /** The matrix `f`'s list is computed from: `current` when lists are live. */
  matrixFor(f: FragranceRec, current: () => AccordMatrix): AccordMatrix {
    if (this.base === null) return current();
    const v = this.fixedAt.get(f.idx);
    return (v === undefined ? undefined : this.epochs.get(v)) ?? this.base;
  }
}
