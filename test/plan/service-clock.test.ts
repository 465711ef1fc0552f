import { describe, expect, test } from 'vitest';
import { commandNamed } from '../../src/cli/registry.ts';
import { formatPlan } from '../../src/plan/format.ts';
import { nightlyRule } from '../../src/plan/freshness.ts';
import { buildPlan } from '../../src/plan/plan.ts';
import { serviceClock } from '../../src/warehouse/service-clock.ts';
import { emptySyncState } from '../../src/warehouse/state-types.ts';
import { testConfig } from '../helpers/sync.ts';

const DAY = 86_400_000;
const policy = testConfig({ baseUrl: 'http://127.0.0.1:1', dbPath: '/tmp/x.duckdb' }).freshness;

describe('serviceClock', () => {
  const clock = serviceClock([
    { runId: 'b', from: '2030-01-02T00:00:00.000Z', offsetMs: DAY },
    { runId: 'a', from: '2030-01-01T00:00:00.000Z', offsetMs: 0 },
  ]);

  test('a stored time takes the offset of the latest run started at or before it', () => {
    expect(clock.at('2029-12-31T12:00:00.000Z')).toBe(Date.parse('2029-12-31T12:00:00.000Z'));
    expect(clock.at('2030-01-01T06:00:00.000Z')).toBe(Date.parse('2030-01-01T06:00:00.000Z'));
    expect(clock.at('2030-01-02T00:00:00.000Z')).toBe(Date.parse('2030-01-03T00:00:00.000Z'));
    expect(clock.at('2030-01-02T01:00:00.000Z')).toBe(Date.parse('2030-01-03T01:00:00.000Z'));
    expect([clock.lastOffsetMs, clock.lastRunId]).toEqual([DAY, 'b']);
    expect(serviceClock().lastOffsetMs).toBeNull();
  });

  test("the nightly rule judges a fetch by its own run's offset, not by today's", () => {
    // Run b (a day ahead at the service) fetched a profile an hour after it began; a run an
    // hour later, still a day ahead: the profile is an hour old, not a day.
    const now = new Date(Date.parse('2030-01-02T02:00:00.000Z') + DAY);
    const rule = nightlyRule(policy, now, clock);
    expect(rule.owed('fragrance', 'profile', 'f1', '2030-01-02T01:00:00.000Z')).toBe(false);
    expect(rule.ageMs?.('2030-01-02T01:00:00.000Z')).toBe(3_600_000);
    // What run a fetched (offset 0) is a day and more old on the service's clock: due.
    expect(rule.owed('fragrance', 'profile', 'f1', '2030-01-01T06:00:00.000Z')).toBe(true);
  });

  test("a nightly's plan says it cannot see the service's clock move (no request)", () => {
    // After a full sync the nightly's lists are sized: the plan is the nightly's.
    const state = emptySyncState();
    state.lastCompletedRun = 'run-1';
    const at = '2030-01-01T00:00:00.000Z';
    for (const walk of ['fragrances@1', 'notes@1', 'accords', 'charts'])
      state.walks.push({ walk, page: 1, total: 0, done: true, at });
    const config = testConfig({ baseUrl: 'http://127.0.0.1:1', dbPath: '/tmp/x.duckdb' });
    const text = formatPlan(buildPlan(state, config, null));
    expect(text).toContain("cannot see the service's clock move since");
    expect(text).toContain('the sync judges ages by the new day and may\n  find more due)');
    // What it tells the reader to run exists: `fragsync sim` takes no action (the day jump is
    // the simulator's HTTP route), and every command the text names is one.
    expect(text).toContain("the simulator's `POST /_sim/advance-day`");
    for (const [, name, rest] of text.matchAll(/`fragsync ([a-z-]+)([^`]*)`/g)) {
      expect(commandNamed(name as string), name).toBeDefined();
      if (name === 'sim')
        expect(rest, 'fragsync sim takes options only').toMatch(/^(\s+--\S+(\s+[^-\s]\S*)?)*$/);
    }
    // A full cycle judges no ages: nothing to say there.
    expect(formatPlan(buildPlan(state, { ...config, full: true }, null))).not.toContain('cannot see');
  });
});
