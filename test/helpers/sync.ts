import pino from 'pino';
import { loadConfig, type Config } from '../../src/config/index.ts';
import { runSync } from '../../src/sync/coordinator.ts';
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

/** Run one sync in this process, as `fragsync sync` would, and return its summary. */
export async function runTestSync(o: TestSyncOptions): Promise<SyncSummary> {
  const config = testConfig(o);
  const lines = o.logLines;
  const log = lines
    ? pino({ level: 'debug' }, { write: (s: string) => void lines.push(s) })
    : pino({ level: 'silent' });
  const runtime = await createRuntime(config, log);
  try {
    return await runSync({
      config,
      log,
      governor: runtime.governor,
      makeDriver: runtime.makeDriver,
      onTick: o.onTick,
    });
  } finally {
    await runtime.close();
  }
}
