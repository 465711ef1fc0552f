import { describe, expect, it } from 'vitest';
import { job, PRIORITY } from '../../jobs/job-id.ts';
import { loadConfig } from '../../src/config/index.ts';
import { nightlyRule, type DueRule } from '../../src/plan/freshness.ts';
import { Frontier } from '../../src/sync/frontier.ts';
import { Gate } from '../../src/sync/gate.ts';
import { DueRanking } from '../../src/sync/rank.ts';
import { emptySyncState } from '../../src/warehouse/state-types.ts';

const config = loadConfig({ flags: {}, env: {} });
const start = new Date('2026-03-02T12:00:00Z');
const HOUR = 3_600_000;

/** One fragrance fetched whole at `at`. */
function fetchedAt(at: string) {
  const fetched = { profile: at, reviews: at, similar: at, wearing: at };
  return {
    ...emptySyncState(),
    items: [
      { entity: 'fragrance' as const, key: 'a/b', firstSeen: at, fetched, lastChanged: null, removed: false },
    ],
  };
}

describe('a nightly judged again on the service clock', () => {
  it('starts untimed: owes only what was never fetched, and scores nothing by it', () => {
    const untimed = nightlyRule(config.freshness, null);
    expect(untimed.owed('fragrance', 'profile', 'a/b', undefined)).toBe(true);
    expect(untimed.owed('fragrance', 'profile', 'a/b', '2000-01-01T00:00:00.000Z')).toBe(false);
    // The ranking judges the catalogue once, by the rule on the service's clock (retime).
    let asked = 0;
    const counted: DueRule = {
      ...untimed,
      owed: (...a) => {
        asked++;
        return untimed.owed(...a);
      },
    };
    const ranking = new DueRanking(fetchedAt('2000-01-01T00:00:00.000Z'), config.datasets, counted, start);
    expect(asked).toBe(0);
    ranking.rescore(nightlyRule(config.freshness, start), start);
    const held = [job('fragranceProfile', { id: 'a/b' }, PRIORITY.due)];
    ranking.rank(held);
    expect(ranking.priorityOf(held[0]!)).toBe(PRIORITY.due);
  });

  it("owes what the service clock says is due and this machine's clock does not yet", () => {
    // Fetched two hours before this run by this machine's clock: not due tonight by it.
    const state = fetchedAt(new Date(start.getTime() - 2 * HOUR).toISOString());
    const rule = nightlyRule(config.freshness, start);
    const f = new Frontier(
      state,
      config.datasets,
      start,
      new Map(),
      new Map(),
      'cents',
      new Map(),
      undefined,
      rule,
    );
    expect(
      f.initialJobs().filter((j) => j.kind.startsWith('fragrance') && j.kind !== 'fragrancesPage'),
    ).toEqual([]);
    // Same clock: nothing more.
    expect(f.retime(nightlyRule(config.freshness, start), start)).toEqual([]);
    // The service's clock is a day ahead: the daily profile is due (and only once).
    const ahead = new Date(start.getTime() + 24 * HOUR);
    expect(f.retime(nightlyRule(config.freshness, ahead), ahead).map((j) => j.kind)).toEqual([
      'fragranceProfile',
    ]);
    expect(f.retime(nightlyRule(config.freshness, ahead), ahead)).toEqual([]);
  });
});

describe('Gate', () => {
  it('asks what is owed once, as the walks end, and holds it for its stage', () => {
    let asked = 0;
    const due = job('fragranceProfile', { id: 'a/b' }, PRIORITY.due);
    const gate = new Gate(
      false,
      () => {},
      () => {
        asked++;
        return [due];
      },
    );
    const walk = job('fragrancesPage', { page: 1 }, PRIORITY.walk);
    expect(gate.pass([walk])).toEqual([walk]);
    expect(gate.ended(null)).toEqual([]);
    expect(asked).toBe(0);
    expect(gate.closesWalks(walk)).toBe(true);
    // Nothing else is outstanding: the signal and entity stages are empty, the due job goes out.
    expect(gate.ended(walk)).toEqual([due]);
    expect(asked).toBe(1);
    expect(gate.closesWalks(due)).toBe(false);
  });
});
