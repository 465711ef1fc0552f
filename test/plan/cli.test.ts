import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/tmp.ts';

const BIN = new URL('../../bin/fragsync.js', import.meta.url).pathname;
const SECRET = 'sk-test-plan-never-print-me';

let dir: { path: string; cleanup(): Promise<void> };
let server: Server;
let port = 0;
let connections = 0;

beforeAll(async () => {
  dir = await tempDir('fragsync-plan-cli-');
  // Stands where the API would be: any connection at all means `plan` tried to spend.
  server = createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  port = typeof addr === 'object' && addr ? addr.port : 0;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await dir.cleanup();
});

function runCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, FRAGSYNC_API_KEY: SECRET };
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env, timeout: 30_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

describe('fragsync plan', () => {
  it('prints the plan for an absent warehouse and sends nothing', async () => {
    const db = join(dir.path, 'absent.duckdb');
    const res = await runCli([
      'plan',
      '--base-url',
      `http://127.0.0.1:${port}`,
      '--db',
      db,
      '--max-cents',
      '500',
    ]);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('LOWER BOUND');
    expect(res.stdout).toMatch(/GET\s+\/v1\/fragrances\s+1\s+1/);
    expect(res.stdout).toMatch(/total \(at least\)\s+4\s+4/);
    expect(res.stdout).toContain('run budget: unknown: 4 cents vs cap 500');
    expect(res.stdout + res.stderr).not.toContain(SECRET);
    // Give a stray connection attempt time to arrive before counting.
    await new Promise((r) => setTimeout(r, 100));
    expect(connections).toBe(0);
  });

  it('rejects a bad flag value with one line on stderr and exit code 2', async () => {
    const res = await runCli(['plan', '--base-url', `http://127.0.0.1:${port}`, '--reserve-percent', '101']);
    expect(res.code).toBe(2);
    expect(res.stdout).toBe('');
    expect(res.stderr.trim().split('\n')).toEqual([
      'fragsync plan: config: quota.reservePercent must be between 0 and 100 (from flag --reserve-percent)',
    ]);
    expect(connections).toBe(0);
  });
});
