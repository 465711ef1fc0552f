import pino from 'pino';
import { loadConfig, type Config } from '../../src/config/index.ts';
import { runSync } from '../../src/sync/coordinator.ts';
import { abandonWarehouse, openWarehouse } from '../../src/sync/open-warehouse.ts';
import type { SyncTick } from '../../src/sync/types.ts';
import { createRuntime } from '../../src/sync/runtime.ts';
import type { SyncSummary } from '../../src/sync/summary.ts';

export interface TestSyncOptions {
  baseUrl: string;
  dbPath: string;
  /** Extra flags, as on the command line (without the leading --). */
  flags?: Record<string, string | boolean>;
  apiKey?: string;
  onTick?: (t: SyncTick) => void;
  /** Between two ticks, ms (SyncDeps.tickMs; 1000 when not given). */
  tickMs?: number;
  /** Collects pino JSON lines when given. */
  logLines?: string[];
}

export function testConfig(o: TestSyncOptions): Config {
  return loadConfig({
    flags: { 'base-url': o.baseUrl, db: o.dbPath, ...(o.flags ?? {}) },
    env: {
      FRAGSYNC_API_KEY: o.apiKey ?? 'sim-key',
      // The spool folder of the test run (test/global-setup.ts), not the user's.
      ...(process.env.FRAGSYNC_SPOOL_DIR ? { FRAGSYNC_SPOOL_DIR: process.env.FRAGSYNC_SPOOL_DIR } : {}),
    },
  });
}

/**
 * Run one sync in this process, as `fragsync sync` does (src/cli/commands/sync.ts): the
 * warehouse's opening starts before the runtime connects, is given up if that fails, and is
 * handed to runSync (SyncDeps.opening), so every test that syncs goes through that path.
 */
export async function runTestSync(o: TestSyncOptions): Promise<SyncSummary> {
  const config = testConfig(o);
  const lines = o.logLines;
  const log = lines
    ? pino({ level: 'debug' }, { write: (s: string) => void lines.push(s) })
    : pino({ level: 'silent' });
  const opening = openWarehouse(config, log);
  opening.catch(() => undefined); // awaited by runSync, or given up below
  let runtime;
  try {
    runtime = await createRuntime(config, log);
  } catch (err) {
    await abandonWarehouse(opening);
    throw err;
  }
  try {
    return await runSync({
      config,
      log,
      governor: runtime.governor,
      makeDriver: runtime.makeDriver,
      onTick: o.onTick,
      tickMs: o.tickMs,
      opening,
    });
  } finally {
    await runtime.close();
  }
}
