/**
 * The change model of a living catalogue: what one simulated day does to it. Rates are shares
 * of the live fragrances; a rate above 0 always touches at least one item, so a small test
 * catalogue still sees every kind of change. The defaults are the day of issue 15 (a
 * 1,500-fragrance catalogue: 15 new releases, one of them from a brand-new house, one
 * discontinued, a few percent with a new score or new reviews, charts reshuffled), documented
 * in docs/simulator.md.
 */
import type { ChangeModel } from './types.ts';

export const DEFAULT_CHANGE_MODEL: ChangeModel = {
  releaseRate: 0.01,
  newHouses: 1,
  removalRate: 0.0005,
  scoreDriftRate: 0.03,
  reviewRate: 0.03,
  accordChangeRate: 0.002,
  popularityRate: 0.05,
  newChartChance: 0.5,
  similarLists: 'fixed',
};

const SIMILAR_LISTS = ['live', 'fixed'] as const;

const RATES = [
  'releaseRate',
  'removalRate',
  'scoreDriftRate',
  'reviewRate',
  'accordChangeRate',
  'popularityRate',
  'newChartChance',
] as const;

/**
 * A complete model from a partial one, or the reason it is not one. Untyped input (a control
 * request's JSON) is checked field by field: an unknown key is refused, not ignored.
 */
export function changeModel(base: ChangeModel, patch: Record<string, unknown>): ChangeModel | string {
  const out: ChangeModel = { ...base };
  for (const [key, v] of Object.entries(patch)) {
    if (v === undefined) continue;
    if (key === 'newHouses') {
      if (typeof v !== 'number' || !Number.isInteger(v) || v < 0)
        return `'newHouses' must be an integer >= 0`;
      out.newHouses = v;
    } else if (key === 'similarLists') {
      if (!(SIMILAR_LISTS as readonly unknown[]).includes(v))
        return `'similarLists' must be one of live, fixed`;
      out.similarLists = v as ChangeModel['similarLists'];
    } else if ((RATES as readonly string[]).includes(key)) {
      if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > 1)
        return `'${key}' must be from 0 to 1`;
      out[key as (typeof RATES)[number]] = v;
    } else return `unknown change-model field '${key}'`;
  }
  return out;
}

/** How many of `size` live items a rate touches: none at 0, else at least one. */
export function share(size: number, rate: number): number {
  return rate <= 0 ? 0 : Math.max(1, Math.round(size * rate));
}
