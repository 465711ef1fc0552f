import { describe, expect, it } from 'vitest';
import { EXIT, exitCodeFor } from '../../src/cli/exit-codes.ts';
import { startSimulator, type Simulator } from '../../src/simulator/index.ts';
import { formatSummary } from '../../src/sync/summary-text.ts';
import {
  callsWithStatus,
  expectLedgerEqual,
  expectMirror,
  governedFiles,
  LogWatch,
  queryWarehouse,
  TEST_JITTER_MS,
} from '../helpers/governed.ts';
import { runTestSync } from '../helpers/sync.ts';

/**
 * Quota scenarios of the governor, end to end: the simulator over HTTP with a small daily
 * quota (a compressed service day of a few seconds, so resets happen by themselves), a real
 * DuckDB file, the in-process driver. Each ends with the warehouse equal to the ground truth
 * and its api_calls equal to the service's ledger.
 */

const files = governedFiles();

/** Real epoch ms of the service's next quota reset, as its X-RateLimit-Reset names it. */
const nextResetMs = (sim: Simulator): number => sim.clock().resetEpochSeconds * 1000;

describe('governed sync: daily quota', () => {
  it('pauses at the exhausted quota, sends nothing until the reset, resumes by itself over four days', async () => {
    const dailyQuota = 70;
    const sim = await startSimulator({ fragrances: 40, seed: 21, dailyQuota, daySeconds: 3 });
    try {
      const dbPath = files.path('days.duckdb');
      const startedService = Date.parse(sim.clock().now);
      const logs = new LogWatch();
      const checks: Promise<{ atPause: number; beforeReset: number; resetMs: number; until: Date }>[] = [];
      logs.onPause = (until) => {
        const atPause = sim.ledger().calls;
        const resetMs = nextResetMs(sim);
        const waitMs = resetMs - 150 - Date.now();
        // A pause that began too close to the reset cannot be sampled inside it.
        if (waitMs < 100) return;
        checks.push(
          new Promise((resolve) =>
            setTimeout(() => resolve({ atPause, beforeReset: sim.ledger().calls, resetMs, until }), waitMs),
          ),
        );
      };
      const summary = await runTestSync({
        baseUrl: sim.url,
        dbPath,
        logLines: logs,
        flags: { config: files.config, concurrency: '8' },
      });
      expect(summary.status).toBe('completed');
      expect(exitCodeFor(summary.status)).toBe(EXIT.ok);
      const calls = sim.ledger().calls;
      expect(calls).toBeGreaterThan(3 * dailyQuota);
      // About four days of quota, so several days ran out and paused until their reset. A slow
      // (or busy) machine may not use up a 3-second day before it ends by itself (the first day
      // also holds the start-up), which adds days: the ceiling is the service days spanned.
      const daysSpanned = Math.round((Date.parse(sim.clock().now) - startedService) / 86_400_000) + 1;
      expect(logs.pauses.length).toBeGreaterThanOrEqual(2);
      expect(logs.pauses.length).toBeLessThanOrEqual(daysSpanned);
      const sampled = await Promise.all(checks);
      expect(sampled.length).toBeGreaterThanOrEqual(2);
      for (const s of sampled) {
        // Not one request (not even a 429) reached the service during the pause.
        expect(s.beforeReset).toBe(s.atPause);
        // The pause ends at the service's reset plus at most the jitter.
        expect(s.until.getTime()).toBeGreaterThanOrEqual(s.resetMs);
        expect(s.until.getTime()).toBeLessThanOrEqual(s.resetMs + TEST_JITTER_MS);
      }
      // The governor stopped at the limit: the service never had to refuse a call.
      expect(callsWithStatus(sim, 429)).toBe(0);
      await expectMirror(sim, dbPath);
      await expectLedgerEqual(sim, dbPath);
    } finally {
      await sim.close();
    }
  });

  it('a run waiting through resets reads the lists again on each new day, first, and finds what was added meanwhile', async () => {
    const sim = await startSimulator({ fragrances: 40, seed: 21, dailyQuota: 70, daySeconds: 3 });
    try {
      const dbPath = files.path('rewalk.duckdb');
      const before = new Set(sim.groundTruth().fragrances.map((f) => f.id));
      const logs = new LogWatch();
      let churned = false;
      logs.onPause = () => {
        // While the sync waits, a new day brings new releases upstream.
        if (!churned) sim.advanceDay({ churn: true });
        churned = true;
      };
      const summary = await runTestSync({
        baseUrl: sim.url,
        dbPath,
        logLines: logs,
        flags: { config: files.config, concurrency: '8' },
      });
      expect(summary.status).toBe('completed');
      const newcomers = sim
        .groundTruth()
        .fragrances.map((f) => f.id)
        .filter((id) => !before.has(id));
      expect(newcomers.length).toBeGreaterThanOrEqual(1);
      const entries = logs.map((l) => JSON.parse(l) as { msg?: string; pass?: number });
      const passes = entries.filter((e) => e.msg === 'new quota day: reading the lists again first');
      expect(passes.length).toBeGreaterThanOrEqual(1);
      expect(passes.map((p) => p.pass)).toEqual(passes.map((_, i) => i + 2));
      // The fragrance list (one page here) was read once per pass: at the start and on each new day.
      const [lists] = await queryWarehouse<{ n: number }>(
        dbPath,
        "SELECT count(*)::INTEGER AS n FROM api_calls WHERE endpoint = '/v1/fragrances' AND status = 200",
      );
      expect(Number(lists?.n)).toBe(1 + passes.length);
      // The newcomers were found and fetched in this run, profile and details.
      const fetched = await queryWarehouse<{ id: string }>(
        dbPath,
        'SELECT f.id FROM fragrances f JOIN wearing_stats w ON w.fragrance_id = f.id WHERE f.year IS NOT NULL',
      );
      const have = new Set(fetched.map((r) => r.id));
      for (const id of newcomers) expect(have.has(id), id).toBe(true);
      // First: after the first pause, the lists were asked for no later than anything else.
      const resumedAt = logs.pauses[0]?.until.toISOString() ?? '';
      const [order] = await queryWarehouse<{ walk: string; other: string }>(
        dbPath,
        `SELECT min("at") FILTER (WHERE endpoint IN ('/v1/fragrances', '/v1/notes', '/v1/accords', '/v1/charts'))::VARCHAR AS walk,
                min("at") FILTER (WHERE endpoint NOT IN ('/v1/fragrances', '/v1/notes', '/v1/accords', '/v1/charts'))::VARCHAR AS other
         FROM api_calls WHERE "at" >= $1::TIMESTAMPTZ`,
        [resumedAt],
      );
      expect(order?.walk).toBeTruthy();
      expect(Date.parse(String(order?.walk))).toBeLessThanOrEqual(Date.parse(String(order?.other)));
      await expectLedgerEqual(sim, dbPath);
    } finally {
      await sim.close();
    }
  });

  it('survives another application draining the pool mid-run: a 429 before the reserve, pause, resume, nothing lost', async () => {
    const sim = await startSimulator({ fragrances: 40, seed: 22, daySeconds: 4 });
    try {
      const dbPath = files.path('drain.duckdb');
      const logs = new LogWatch();
      let drained: { calls: number; resetMs: number } | null = null;
      const poll = setInterval(() => {
        // Another application of the account spends what is left while our sync runs.
        if (!drained && sim.ledger().calls >= 60) {
          sim.setRemaining(0);
          drained = { calls: sim.ledger().calls, resetMs: nextResetMs(sim) };
        }
      }, 2);
      const summary = await runTestSync({
        baseUrl: sim.url,
        dbPath,
        logLines: logs,
        flags: { config: files.config, concurrency: '4' },
      }).finally(() => clearInterval(poll));
      expect(summary.status).toBe('completed');
      expect(drained).not.toBeNull();
      const d = drained as unknown as { calls: number; resetMs: number };
      // The governor could not see it coming: the service refused, at most the calls in flight.
      const refused = callsWithStatus(sim, 429);
      expect(refused).toBeGreaterThanOrEqual(1);
      expect(refused).toBeLessThanOrEqual(4);
      const [low] = await queryWarehouse<{ n: number }>(
        dbPath,
        'SELECT min(quota_remaining)::INTEGER AS n FROM api_calls WHERE status = 200',
      );
      expect(Number(low?.n)).toBeGreaterThan(0);
      // It paused until that day's reset, and the run went on after it.
      expect(logs.pauses.length).toBeGreaterThanOrEqual(1);
      const until = logs.pauses[0]?.until.getTime() ?? 0;
      expect(until).toBeGreaterThanOrEqual(d.resetMs);
      expect(until).toBeLessThanOrEqual(d.resetMs + TEST_JITTER_MS);
      expect(sim.ledger().calls).toBeGreaterThan(d.calls + refused);
      await expectMirror(sim, dbPath);
      await expectLedgerEqual(sim, dbPath);
    } finally {
      await sim.close();
    }
  });

  it('logs the pause with its end time, and never the API key', async () => {
    const key = 'fds_live_7Hq2ZpW9xK4mN8vR3tY6';
    const sim = await startSimulator({
      fragrances: 40,
      seed: 25,
      // Long enough that the first day cannot end before the sync has spent its quota (start-up of
      // the loader thread included), even on a machine loaded by other work (4 s was not, at a
      // load average of 25): the test is about the pause, so one must happen.
      daySeconds: 10,
      dailyQuota: 150,
      keys: [key],
    });
    try {
      const dbPath = files.path('logs.duckdb');
      const logs = new LogWatch();
      const summary = await runTestSync({
        baseUrl: sim.url,
        dbPath,
        apiKey: key,
        logLines: logs,
        flags: { config: files.config, concurrency: '4' },
      });
      expect(summary.status).toBe('completed');
      const entries = logs.map((l) => JSON.parse(l) as Record<string, unknown>);
      const paused = entries.filter((e) => String(e.msg).startsWith('quota paused until'));
      expect(paused.length).toBeGreaterThanOrEqual(1);
      for (const e of paused) {
        // The end time is a field of its own and also in the message.
        expect(typeof e.pausedUntil).toBe('string');
        expect(Number.isNaN(Date.parse(String(e.pausedUntil)))).toBe(false);
        expect(e.msg).toBe(`quota paused until ${String(e.pausedUntil)}`);
        expect(e.runId).toBe(summary.runId);
      }
      expect(logs.length).toBeGreaterThan(10);
      for (const line of logs) expect(line).not.toContain(key);
      for (const line of logs) expect(line).not.toContain(key.slice(4));
      await expectMirror(sim, dbPath);
      await expectLedgerEqual(sim, dbPath);
    } finally {
      await sim.close();
    }
  });

  it('with --no-wait stops at the exhausted quota (exit code 5), and the next run continues', async () => {
    const sim = await startSimulator({ fragrances: 40, seed: 24, dailyQuota: 160 });
    try {
      const dbPath = files.path('nowait.duckdb');
      const flags = { config: files.config, concurrency: '4', 'no-wait': true, reserve: '10' };
      const first = await runTestSync({ baseUrl: sim.url, dbPath, flags });
      expect(first.status).toBe('quota_exhausted');
      expect(exitCodeFor(first.status)).toBe(EXIT.quotaExhausted);
      expect(first.pausedUntil).not.toBeNull();
      // The reset the service named (midnight UTC), not the pause's end: that adds the jitter.
      const reset = new Date(sim.clock().resetEpochSeconds * 1000).toISOString();
      expect(first.quotaResetsAt?.toISOString()).toBe(reset);
      expect(formatSummary(first)).toContain(`quota resets at ${reset}`);
      // It stopped exactly at the reserve, without one refused call.
      expect(sim.clock().remaining).toBe(10);
      expect(callsWithStatus(sim, 429)).toBe(0);
      expect(first.calls).toBe(sim.ledger().calls);
      expect(first.owed?.calls).toBeGreaterThan(0);

      sim.advanceDay({ churn: false });
      const second = await runTestSync({ baseUrl: sim.url, dbPath, flags });
      expect(second.status).toBe('completed');
      expect(exitCodeFor(second.status)).toBe(EXIT.ok);
      expect(second.owed).toBeNull();
      expect(first.calls + second.calls).toBe(sim.ledger().calls);
      await expectMirror(sim, dbPath);
      await expectLedgerEqual(sim, dbPath);
    } finally {
      await sim.close();
    }
  });
});
