import { execFile, spawn } from 'node:child_process';
import type { Simulator } from '../../src/simulator/index.ts';
import { BIN } from './worker-process.ts';

/**
 * Processes under test: `fragsync sync` against the simulator, and code that must run out of
 * room to write for real.
 */

/**
 * Running out of room to write, for tests, without root or a small filesystem: the command
 * runs under a file-size limit (bash's `ulimit -f`, in KiB), so a write that would grow any
 * file past it fails with EFBIG, as a full disk fails it with ENOSPC. SIGXFSZ is ignored
 * first, or the kernel would kill the process at the first such write; an ignored signal
 * stays ignored across exec. Returns the program and arguments to spawn.
 */
export function withFileSizeLimit(kb: number, command: string, args: string[]): [string, string[]] {
  // --norc: with stdin a socket (as Node's pipes to a child are), bash would read ~/.bashrc.
  return ['bash', ['--norc', '-c', `trap '' XFSZ; ulimit -f ${kb}; exec "$0" "$@"`, command, ...args]];
}

/**
 * A TypeScript module (as text, importing the project's sources by path from the repository
 * root) run in its own Node process under a file-size limit; resolves with what it printed.
 */
export function runUnderFileLimit(
  kb: number,
  source: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const [cmd, args] = withFileSizeLimit(kb, process.execPath, [
    '--import',
    'tsx',
    '--input-type=module',
    '-e',
    source,
  ]);
  const root = new URL('../..', import.meta.url);
  return new Promise((resolve) => {
    execFile(cmd, args, { cwd: root, timeout: 30_000 }, (err, stdout, stderr) => {
      const code = err ? Number((err as { code?: number }).code ?? 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * `node bin/fragsync.js sync` as a real process against the simulator (the in-process driver
 * unless `redis` is given), for the e2e scenarios that kill it or starve it of disk.
 */
export interface SyncProc {
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }>;
  kill(): void;
  /** Send a signal (SIGINT, SIGTERM) to the process. */
  signal(sig: NodeJS.Signals): void;
  /** What it printed so far (stdout and stderr). */
  output(): string;
}

export interface SyncProcOptions {
  config: string;
  concurrency: number;
  /** A file-size limit in KiB: writes past it fail as on a full disk (withFileSizeLimit). */
  fileSizeLimitKb?: number;
  /** BullMQ mode on this Redis and queue prefix; without it, the in-process driver. */
  redis?: { url: string; prefix: string };
  /** Default warn; info also logs quota pauses. */
  logLevel?: string;
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
    o.logLevel ?? 'warn',
    ...(o.redis ? ['--redis', o.redis.url, '--queue-prefix', o.redis.prefix] : []),
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
    signal: (sig) => child.kill(sig),
    output: () => output.join(''),
  };
}
