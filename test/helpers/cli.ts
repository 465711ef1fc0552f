import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { BIN } from './worker-process.ts';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * `node bin/fragsync.js ...args`, the real binary, with only PATH, HOME and `env` set.
 * `nodeArgs` go to node before the binary (a fault to plant: test/helpers/faults).
 */
export function fragsync(
  args: readonly string[],
  env: Record<string, string> = {},
  opts: { input?: string; timeoutMs?: number; nodeArgs?: readonly string[] } = {},
): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [...(opts.nodeArgs ?? []), BIN, ...args],
      {
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
        timeout: opts.timeoutMs ?? 60_000,
        maxBuffer: 64 * 1024 * 1024,
      },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
    if (opts.input !== undefined) child.stdin?.end(opts.input);
    else child.stdin?.end();
  });
}

/** What a person reads on stderr: pino's JSON log lines aside. */
export function said(r: CliResult): string[] {
  return r.stderr.split('\n').filter((l) => l.length > 0 && !l.startsWith('{'));
}

/** A loopback port nothing listens on (taken, then released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
