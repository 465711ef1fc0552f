import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.ts';
import { formatPlan } from '../../src/plan/format.ts';
import { planJson } from '../../src/plan/plan-json.ts';
import { buildPlan } from '../../src/plan/plan.ts';
import { emptySyncState } from '../../src/warehouse/state-types.ts';
import type { ItemState, SyncState, WalkState } from '../../src/warehouse/state-types.ts';
import type { Dataset, EntityKind } from '../../src/domain/entities.ts';

const EARLIER = '2024-05-01T10:00:00.000Z';
const CYCLE = '2024-05-02T00:00:00.000Z';
const LATER = '2024-05-02T03:00:00.000Z';
const NOW = new Date('2024-05-02T06:00:00.000Z');

const config = (flags: Record<string, string | boolean> = {}) => loadConfig({ flags, env: {} });

function item(entity: EntityKind, key: string, at: string, datasets: Dataset[]): ItemState {
  return {
    entity,
    key,
    firstSeen: EARLIER,
    fetched: Object.fromEntries(datasets.map((d) => [d, at])),
    lastChanged: null,
    removed: false,
  };
}

const walk = (name: string, total: number, page: number, done: boolean, at: string): WalkState => ({
  walk: name,
  page,
  total,
  done,
  at,
});

/** The marks a paged walk leaves, as jobs/fragrances-page.ts writes them: one per page, `<name>@<page>`. */
const pagedWalk = (name: string, total: number, pages: number[], at: string): WalkState[] =>
  pages.map((page) => walk(`${name}@${page}`, total, page, true, at));

const FRAG_SETS: Dataset[] = ['profile', 'similar', 'wearing', 'reviews'];

/**
 * A warehouse after one completed run: 120 fragrances, 3 brands, 4 perfumers, 75 notes, 12
 * accords, 3 charts; the fragrance list's last read (a later run, stopped) ended before its
 * third page, and its total announces 130: 10 fragrances not seen yet.
 */
function afterCompletedRun(): SyncState {
  const s = emptySyncState();
  s.lastCompletedRun = 'run-1';
  for (let i = 0; i < 120; i++) {
    s.items.push(item('fragrance', `f${i}`, EARLIER, FRAG_SETS));
    s.reviewTotals.set(`f${i}`, i % 3 === 0 ? 5 : 130);
    s.similarCounts.set(`f${i}`, i % 2 === 0 ? 10 : 50);
  }
  const brandSizes = { a: 60, b: 50, c: 10 };
  for (const [slug, size] of Object.entries(brandSizes)) {
    s.items.push(item('brand', slug, EARLIER, ['profile', 'catalogue']));
    s.brandCatalogueSizes.set(slug, size);
  }
  for (let i = 0; i < 4; i++) s.items.push(item('perfumer', `p${i}`, EARLIER, ['profile']));
  for (let i = 0; i < 75; i++) s.items.push(item('note', `n${i}`, EARLIER, ['profile']));
  for (let i = 0; i < 12; i++) s.items.push(item('accord', `a${i}`, EARLIER, ['profile']));
  for (let i = 0; i < 3; i++) s.items.push(item('chart', `c${i}`, EARLIER, ['profile']));
  s.walks.push(
    ...pagedWalk('fragrances', 130, [1, 2], EARLIER),
    ...pagedWalk('notes', 75, [1, 2], EARLIER),
    walk('accords', 12, 1, true, EARLIER),
    walk('charts', 3, 1, true, EARLIER),
  );
  return s;
}

/** The same with every fragrance seen (the list announces 120): every review total is known. */
function allTotalsKnown(): SyncState {
  const s = afterCompletedRun();
  s.walks = s.walks.map((w) => (w.walk.startsWith('fragrances@') ? { ...w, total: 120 } : w));
  return s;
}

const callsOf = (plan: ReturnType<typeof buildPlan>) =>
  Object.fromEntries(Object.entries(plan.cost.byEndpoint).map(([k, v]) => [k, v.calls]));

describe('buildPlan', () => {
  it('gives a labelled lower bound for an empty warehouse', () => {
    const plan = buildPlan(emptySyncState(), config(), null, { now: NOW });
    expect(plan.kind).toBe('lowerBound');
    expect(plan.unknownSizes).toEqual(
      expect.arrayContaining(['fragrances', 'notes', 'accords', 'charts', 'brands', 'perfumers']),
    );
    // Only the first page of each discovery walk: nothing invented.
    expect(callsOf(plan)).toEqual({ listFragrances: 1, listNotes: 1, listAccords: 1, listCharts: 1 });
    expect(plan.perFragrance).toMatchObject({ calls: 4, cents: 6 });
    expect(plan.fits.quota).toBe('unknown');
    const text = formatPlan(plan);
    expect(text).toContain('LOWER BOUND');
    expect(text).toMatch(/total \(at least\)\s+4\s+4/);
  });

  // A full cycle after a completed one is --full (the default would be the nightly).
  it('sizes the next full cycle from the walk totals of earlier runs', () => {
    const plan = buildPlan(afterCompletedRun(), config({ full: true }), null, { now: NOW });
    expect(plan.kind).toBe('fullCycle');
    const n = 130; // 120 known + 10 announced by the list walk
    expect(plan.undiscoveredFragrances).toBe(10);
    // Every page again (a full sync repairs): 40 totals of 5 (1 page), 80 of 130 (3 pages),
    // and one page for each of the 10 whose total is unknown.
    const reviewPages = 40 + 80 * 3 + 10;
    expect(callsOf(plan)).toEqual({
      listFragrances: 3,
      getFragrance: n,
      getSimilar: n,
      getWearingStats: n,
      getReviews: reviewPages,
      getBrand: 3,
      getBrandFragrances: 4,
      getPerfumer: 4,
      listNotes: 2,
      getNote: 75,
      listAccords: 1,
      listCharts: 1,
      getChart: 3,
    });
    // The spec's prices: every call above 1 cent, but similar and wearing stats 2 each.
    expect(plan.cost.cents).toBe(3 + n * (1 + 2 + 2) + reviewPages + 3 + 4 + 4 + 2 + 75 + 1 + 1 + 3);
  });

  // A listing may name an entry twice (the edge reading's list: 151 entries for 132). Once a
  // read went through every page, each entry it named is a known item, so a total above the
  // items is repeats: a new full cycle owes nothing for them (it counted 10 fragrances more).
  it('counts no fragrance to find from a list read whole whose total is above its items', () => {
    const s = afterCompletedRun();
    s.walks = s.walks.filter((w) => !w.walk.startsWith('fragrances@'));
    s.walks.push(...pagedWalk('fragrances', 130, [1, 2, 3], EARLIER));
    const plan = buildPlan(s, config({ full: true }), null, { now: NOW });
    expect(plan.kind).toBe('fullCycle');
    expect(plan.undiscoveredFragrances).toBe(0);
    expect(callsOf(plan)).toMatchObject({ listFragrances: 3, getFragrance: 120, getSimilar: 120 });
  });

  it('counts only the work still owed in an open cycle', () => {
    const s = afterCompletedRun();
    s.cycleStart = CYCLE;
    s.lastCompletedRun = 'run-1';
    // 100 fragrances fully fetched in this cycle, 20 still owed; the list walk finished.
    for (const it of s.items.filter((i) => i.entity === 'fragrance').slice(0, 100)) {
      for (const d of FRAG_SETS) it.fetched[d] = LATER;
    }
    // f100 has its profile already.
    const f100 = s.items.find((i) => i.key === 'f100');
    if (f100) f100.fetched.profile = LATER;
    s.walks = s.walks.filter((w) => !w.walk.startsWith('fragrances@'));
    s.walks.push(...pagedWalk('fragrances', 120, [1, 2, 3], LATER));
    // Brand a: profile done, catalogue walk at page 1 of 2; b and c untouched.
    const a = s.items.find((i) => i.key === 'a');
    if (a) a.fetched.profile = LATER;
    s.walks.push(walk('brand:a', 60, 1, false, LATER));
    // Every other entity done this cycle.
    for (const i of s.items.filter((i) => ['perfumer', 'note', 'chart'].includes(i.entity))) {
      i.fetched.profile = LATER;
    }
    s.walks = s.walks.map((w) => (w.walk.startsWith('brand:') ? w : { ...w, at: LATER, done: true }));

    const plan = buildPlan(s, config({ full: true }), null, { now: NOW });
    expect(plan.kind).toBe('openCycle');
    expect(plan.undiscoveredFragrances).toBe(0);
    expect(callsOf(plan)).toEqual({
      getFragrance: 19,
      getSimilar: 20,
      getWearingStats: 20,
      getReviews: 6 + 14 * 3, // f102, f105, ... f117 have 5 reviews, the other 14 have 130
      getBrand: 2,
      getBrandFragrances: 1 + 1 + 1, // a: page 2 of 2; b: 1 page; c: 1 page
    });
    expect(formatPlan(plan)).toContain(`cycle open since ${CYCLE}`);
  });

  it('chooses enrich under objective calls where it saves a quota unit, never under cents', () => {
    const state = afterCompletedRun();
    const cents = buildPlan(state, config({ full: true }), null, { now: NOW });
    const calls = buildPlan(state, config({ full: true, objective: 'calls' }), null, { now: NOW });
    // Eligible: similar < 20 (even i) and review total <= 20 (i % 3 == 0) -> i % 6 == 0.
    const eligible = Array.from({ length: 120 }, (_, i) => i).filter((i) => i % 6 === 0).length;
    expect(cents.cost.byEndpoint.enrich).toBeUndefined();
    expect(calls.cost.byEndpoint.enrich?.calls).toBe(eligible);
    expect(calls.cost.calls).toBe(cents.cost.calls - eligible);
    expect(calls.cost.cents).toBe(cents.cost.cents + eligible * 7);
  });

  it('checks the plan against quota minus reserve and the cent caps', () => {
    const state = allTotalsKnown();
    const total = buildPlan(state, config(), null, { now: NOW }).cost;
    const resetAt = new Date('2024-05-03T00:00:00.000Z');
    const tight = buildPlan(
      state,
      config({ reserve: '10', 'max-cents': String(total.cents - 1), 'max-cents-per-day': '100000' }),
      { remaining: total.calls + 5, limit: 10_000, resetAt },
      { now: NOW, centsToday: 50 },
    );
    expect(tight.quota?.availableCalls).toBe(total.calls - 5);
    expect(tight.fits).toEqual({ quota: 'exceeds', runBudget: 'exceeds', dayBudget: 'fits' });
    const roomy = buildPlan(
      state,
      config({ 'reserve-percent': '1', 'max-cents-per-day': String(total.cents + 49) }),
      { remaining: total.calls + 100, limit: 10_000, resetAt },
      { now: NOW, centsToday: 50 },
    );
    expect(roomy.quota?.reserveCalls).toBe(100); // 1 % of 10 000
    expect(roomy.fits).toEqual({ quota: 'fits', runBudget: 'uncapped', dayBudget: 'exceeds' });
    const text = formatPlan(roomy);
    expect(text).toMatch(new RegExp(`total\\s+${total.calls}\\s+${total.cents}`));
    expect(text).toContain('quota: fits');
    expect(text).toContain('day budget: DOES NOT FIT');
  });

  it('says "at least", and why, where review totals are unknown: pages beyond the first are not counted', () => {
    // 10 fragrances announced by the list walk and never read: one review page each.
    const plan = buildPlan(afterCompletedRun(), config({ full: true }), null, { now: NOW });
    expect(plan.kind).toBe('fullCycle');
    expect([plan.unknownReviewTotals, plan.atLeast]).toEqual([10, true]);
    const text = formatPlan(plan);
    expect(text).toMatch(new RegExp(`total \\(at least\\)\\s+${plan.cost.calls}\\s+${plan.cost.cents}`));
    expect(text).toContain(`quota units: ${plan.cost.quotaUnits} (at least)`);
    expect(text).toContain("10 fragrances' review totals are not known yet");
    expect(text).toContain('the pages beyond the first are unknown until read');
    // A lower bound that fits a cap proves nothing.
    const capped = buildPlan(afterCompletedRun(), config({ full: true, 'max-cents': '100000' }), null, {
      now: NOW,
    });
    expect(capped.fits.runBudget).toBe('unknown');
    // Every total known: an exact figure, said plainly.
    const known = buildPlan(allTotalsKnown(), config({ full: true }), null, { now: NOW });
    expect([known.unknownReviewTotals, known.atLeast]).toEqual([0, false]);
    expect(formatPlan(known)).not.toContain('at least');
  });

  it('labels the records in quarantine asked again on their endpoint line and refresh line, in text and JSON', () => {
    // A nightly: f1's similar list was quarantined, so its fetch is forgotten (sync-state.ts).
    const s = allTotalsKnown();
    delete s.items.find((i) => i.key === 'f1')!.fetched.similar;
    s.quarantineOwed = [
      { entity: 'fragrance', dataset: 'similar', key: 'f1', endpoint: '/v1/fragrances/{id}/similar' },
    ];
    const plan = buildPlan(s, config(), null, { now: NOW });
    expect([plan.kind, plan.quarantinedAskedAgain]).toEqual(['nightly', 1]);
    const text = formatPlan(plan);
    const label = '(1 of them: quarantined record asked again)';
    expect(text).toMatch(
      /^ {2}GET\s+\/v1\/fragrances\/\{id\}\/similar\s+\d+\s+\d+ {2}\(1 of them: quarantined/m,
    );
    expect(text).toMatch(
      /^ {2}fragrance similar: \d+ \(.*\) \(1 of them: quarantined record asked again\)$/m,
    );
    expect(text.split('\n').filter((l) => l.endsWith(label))).toHaveLength(2);
    const j = JSON.parse(planJson(plan));
    expect(j.byEndpoint.getSimilar.quarantinedAskedAgain).toBe(1);
    const refresh = j.nightly.refresh as { dataset: string; keys: string[]; quarantinedAskedAgain: number }[];
    expect(refresh.find((r) => r.dataset === 'similar')).toMatchObject({ quarantinedAskedAgain: 1 });
    expect(refresh.find((r) => r.dataset === 'similar')!.keys).toContain('f1');
    for (const r of refresh.filter((x) => x.dataset !== 'similar')) expect(r.quarantinedAskedAgain).toBe(0);
  });

  it('treats a remaining count from before the reset as the full limit', () => {
    const plan = buildPlan(
      allTotalsKnown(),
      config(),
      { remaining: 3, limit: 5000, resetAt: new Date(NOW.getTime() - 1000) },
      { now: NOW },
    );
    expect(plan.quota).toMatchObject({ windowReset: true, remaining: 5000, availableCalls: 5000 });
    expect(plan.fits.quota).toBe('fits');
  });
});
