/**
 * SimulatorOptions.invalidRecord: one fragrance profile served in a shape the spec does not
 * allow, so a test can watch a client keep it aside (quarantine) and load everything else.
 * Not a reading of the spec, unlike the variants: a service's bug. The ground truth keeps
 * the profile as it should have been.
 */
import type { Catalogue } from './catalogue.ts';
import type { FragranceRec } from './model.ts';
import type { InvalidRecordInfo, InvalidRecordKind } from './types.ts';

export class InvalidRecord {
  readonly info: InvalidRecordInfo;
  private readonly target: FragranceRec;

  constructor(
    readonly kind: InvalidRecordKind,
    cat: Catalogue,
  ) {
    this.target = pick(cat);
    this.info = { endpoint: '/v1/fragrances/{id}', id: this.target.id, kind };
  }

  /** The answer to getFragrance, broken when it is the target's; anything else as it was. */
  apply(endpoint: string, cat: Catalogue, key: string | undefined, payload: unknown): unknown {
    if (endpoint !== 'getFragrance' || key === undefined || cat.find(key) !== this.target) return payload;
    const p = { ...(payload as Record<string, unknown>) };
    // A year the spec types as an integer, sent as text; or a required field left out.
    if (this.kind === 'wrong-type') p.year = String(p.year);
    else delete p.name;
    return p;
  }
}

/**
 * The first fragrance whose brand and perfumer other fragrances name too: a sync still finds
 * them, so only this profile's own rows are missing from the mirror.
 */
function pick(cat: Catalogue): FragranceRec {
  const fs = cat.data.fragrances;
  const shared = (list: number[], f: FragranceRec) => list.some((i) => i !== f.idx && !fs[i]!.removed);
  const f = fs.find(
    (f) =>
      !f.removed &&
      shared(cat.data.brands[f.brand]!.fragrances, f) &&
      shared(cat.data.perfumers[f.perfumer]!.fragrances, f),
  );
  if (!f) throw new Error('invalidRecord: no fragrance shares its brand and perfumer with another');
  return f;
}
