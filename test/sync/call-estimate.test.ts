import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.ts';
import { CallEstimate } from '../../src/sync/call-estimate.ts';
import type { SyncTick } from '../../src/sync/types.ts';
import { runTestSync } from '../helpers/sync.ts';
import { tempDir } from '../helpers/tmp.ts';

const listPage1 = (total: number) =>
  ({ kind: 'walk', walk: 'fragrances@1', page: 1, total, done: true, pageSize: 50 }) as const;
const profile = (key: string) => ({ kind: 'fetched', entity: 'fragrance', key, dataset: 'profile' }) as const;

describe('CallEstimate', () => {
  const WANTED = ['profile', 'similar', 'wearing', 'reviews'] as const;
  const none = { read: {}, listTotal: null };
  const fetched = (key: string, dataset: string) =>
    ({ kind: 'fetched', entity: 'fragrance', key, dataset }) as const;

  it('counts every wanted dataset not yet read, per fragrance, once the list tells the total', () => {
    const e = new CallEstimate(WANTED, none, true);
    expect(e.total(10)).toBeNull();
    e.observe([listPage1(1000)]);
    expect(e.total(10)).toBe(10 + 1000 * 4);
    e.observe([profile('a'), profile('b'), fetched('a', 'similar')]);
    expect(e.total(20)).toBe(20 + 998 + 999 + 1000 + 1000);
    // Other walks, entities and datasets say nothing of it.
    e.observe([{ kind: 'walk', walk: 'notes@1', page: 1, total: 5000, done: true }]);
    e.observe([
      { kind: 'fetched', entity: 'brand', key: 'x', dataset: 'profile' },
      fetched('a', 'catalogue'),
    ]);
    expect(e.total(20)).toBe(20 + 998 + 999 + 1000 + 1000);
  });

  it('a resumed cycle starts from what it already read; a nightly estimates nothing', () => {
    const resumed = new CallEstimate(
      ['profile', 'similar'],
      { read: { profile: 600, similar: 500 }, listTotal: 1000 },
      true,
    );
    expect(resumed.total(0)).toBe(400 + 500);
    const nightly = new CallEstimate(WANTED, none, false);
    nightly.observe([listPage1(1000)]);
    expect(nightly.total(5)).toBeNull();
  });
});

let dir: { path: string; cleanup(): Promise<void> };
beforeAll(async () => {
  dir = await tempDir();
});
afterAll(async () => {
  await dir.cleanup();
});

describe('the progress estimate of a real full sync', () => {
  it('is within a fifth of the calls made from the first tick after the list total', async () => {
    // 50 ms a call keeps the run several seconds long: a tick a second.
    const sim = await startSimulator({ fragrances: 500, seed: 3, latencyMs: 50 });
    const ticks: SyncTick[] = [];
    try {
      const summary = await runTestSync({
        baseUrl: sim.url,
        dbPath: join(dir.path, 'estimate.duckdb'),
        onTick: (t) => ticks.push(t),
      });
      expect(summary.status).toBe('completed');
      const estimated = ticks.filter((t) => t.expectedCalls !== null && t.phase !== 'finishing');
      expect(estimated.length).toBeGreaterThanOrEqual(3);
      // The first is early in the run, where the jobs scheduled alone said far less.
      const first = estimated[0] as SyncTick;
      expect(first.calls).toBeLessThan(summary.calls / 2);
      for (const t of estimated) {
        const off = Math.abs((t.expectedCalls as number) - summary.calls) / summary.calls;
        expect(off, `tick at ${t.calls} calls said ${t.expectedCalls} of ${summary.calls}`).toBeLessThan(0.2);
      }
    } finally {
      await sim.close();
    }
  }, 60_000);
});
