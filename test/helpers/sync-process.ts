import { spawn } from 'node:child_process';
import type { Simulator } from '../../src/simulator/index.ts';
import { withFileSizeLimit } from './file-limit.ts';
import { BIN } from './worker-process.ts';

/**
 * `node bin/fragsync.js sync` as a real process against the simulator, without Redis (the
 * in-process driver), for the e2e scenarios that kill it or starve it of disk.
 */
export interface SyncProc {
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }>;
  kill(): void;
}

export interface SyncProcOptions {
  config: string;
  concurrency: number;
  /** A file-size limit in KiB: writes past it fail as on a full disk (withFileSizeLimit). */
  fileSizeLimitKb?: number;
}

export function spawnSync(sim: Simulator, dbPath: string, o: SyncProcOptions): SyncProc {
  const env: NodeJS.ProcessEnv = { ...process.env, FRAGSYNC_API_KEY: 'sim-key' };
  delete env.REDIS_URL;
  delete env.FRAGSYNC_REDIS_URL;
  const args = [
    BIN,
    'sync',
    '--base-url',
    sim.url,
    '--db',
    dbPath,
    '--config',
    o.config,
    '--concurrency',
    String(o.concurrency),
    '--log-level',
    'warn',
  ];
  const [cmd, argv] =
    o.fileSizeLimitKb === undefined
      ? [process.execPath, args]
      : withFileSizeLimit(o.fileSizeLimitKb, process.execPath, args);
  const child = spawn(cmd, argv, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  child.stdout?.on('data', (b: Buffer) => output.push(b.toString()));
  child.stderr?.on('data', (b: Buffer) => output.push(b.toString()));
  return {
    exited: new Promise((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal, output: output.join('') })),
    ),
    kill: () => child.kill('SIGKILL'),
  };
}
