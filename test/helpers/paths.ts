import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { Warehouse } from '../../src/warehouse/warehouse.ts';
import { withFileSizeLimit } from './sync-process.ts';
import { tempDir } from './tmp.ts';
import { BIN } from './worker-process.ts';

/** Unusable paths (test/cli/paths.test.ts, test/faults/paths.fault.ts): how a command ended. */
export interface Ended {
  code: number | null;
  stderr: string;
  ms: number;
}

/**
 * `fragsync ...args` with only PATH and a key set (plus `env`), under a file-size limit of
 * `fileSizeKb` when given (withFileSizeLimit: a full location without root); killed after
 * 30 s, so a hang ends as a wrong exit code.
 */
export function fragsyncTimed(
  args: string[],
  o: { env?: Record<string, string>; fileSizeKb?: number } = {},
): Promise<Ended> {
  const started = Date.now();
  const [cmd, argv] =
    o.fileSizeKb === undefined
      ? [process.execPath, [BIN, ...args]]
      : withFileSizeLimit(o.fileSizeKb, process.execPath, [BIN, ...args]);
  const env = { PATH: process.env.PATH ?? '', FRAGSYNC_API_KEY: 'k', ...o.env };
  return new Promise((resolve) => {
    execFile(cmd, argv, { env, timeout: 30_000 }, (err, _stdout, stderr) => {
      const code = err ? ((err as { code?: number | null }).code ?? null) : 0;
      resolve({ code: typeof code === 'number' ? code : null, stderr, ms: Date.now() - started });
    });
  });
}

/** A temp folder holding a usable warehouse (`db`) for the file's tests; `done` runs after all. */
export function usableWarehouse(done: () => void): { readonly dir: string; readonly db: string } {
  let dir: { path: string; cleanup(): Promise<void> } | null = null;
  beforeAll(async () => {
    dir = await tempDir();
    await (await Warehouse.open(join(dir.path, 'ok.duckdb'))).close();
  });
  afterAll(async () => {
    await dir?.cleanup();
    done();
  });
  return {
    get dir() {
      return dir!.path;
    },
    get db() {
      return join(dir!.path, 'ok.duckdb');
    },
  };
}
