import { spawn } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.ts';
import { startSimulator } from '../../src/simulator/index.ts';
import { fragsync, said } from '../helpers/cli.ts';
import { tempDir, uniquePrefix } from '../helpers/tmp.ts';
import { BIN, cleanPrefix } from '../helpers/worker-process.ts';

/** What the CLI says of side effects a user asked for in passing: an export, an open dashboard. */
let dir: { path: string; cleanup(): Promise<void> };
beforeAll(async () => {
  dir = await tempDir('fragsync-notices-');
});
afterAll(() => dir.cleanup());

describe('sync --parquet DIR', () => {
  it('says in one line where the export went and how many files it wrote', async () => {
    const sim = await startSimulator({ fragrances: 5 });
    try {
      const out = join(dir.path, 'parquet');
      const r = await fragsync(
        ['sync', '--base-url', sim.url, '--db', join(dir.path, 'p.duckdb'), '--parquet', out],
        {
          FRAGSYNC_API_KEY: 'sim-key',
        },
      );
      expect(r.code, r.stderr).toBe(EXIT.ok);
      const files = (await readdir(out)).filter((f) => f.endsWith('.parquet')).length;
      expect(files).toBeGreaterThan(0);
      expect(said(r).filter((l) => !/^\d{4}-\d\d-\d\dT/.test(l))).toEqual([
        `fragsync sync: exported ${files} Parquet files to ${out}`,
      ]);
    } finally {
      await sim.close();
    }
  });
});

/** `fragsync dashboard --host 0.0.0.0` until it listens, then SIGTERM; its whole stderr. */
async function dashboardStderr(env: Record<string, string>): Promise<string> {
  const redisUrl = inject('redisUrl');
  const prefix = uniquePrefix('notice');
  const args = [
    'dashboard',
    '--redis',
    redisUrl,
    '--queue-prefix',
    prefix,
    '--db',
    join(dir.path, 'd.duckdb'),
  ];
  const child = spawn(process.execPath, [BIN, ...args, '--host', '0.0.0.0', '--port', '0'], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
    if (stdout.includes('dashboard on ')) child.kill('SIGTERM');
  });
  try {
    expect(await exited, stderr).toBe(EXIT.ok);
  } finally {
    await cleanPrefix(redisUrl, prefix);
  }
  return stderr;
}

describe('dashboard on every interface', () => {
  it('without basic auth: one warning line naming the address and the variables', async () => {
    expect(await dashboardStderr({})).toBe(
      'fragsync dashboard: warning: listening on 0.0.0.0 with no basic auth: anyone who can reach the port sees the quota, spend, runs and queues, job payloads included (the board is read-only; set FRAGSYNC_DASHBOARD_USER and FRAGSYNC_DASHBOARD_PASSWORD)\n',
    );
  });

  it('with basic auth: no warning', async () => {
    const auth = { FRAGSYNC_DASHBOARD_USER: 'u', FRAGSYNC_DASHBOARD_PASSWORD: 'p' };
    expect(await dashboardStderr(auth)).toBe('');
  });
});

describe('dashboard on a port in use', () => {
  it('one line naming the address and why, exit 2, as sim says it', async () => {
    const busy = await startSimulator({ fragrances: 5 });
    try {
      const args = ['dashboard', '--redis', inject('redisUrl'), '--db', join(dir.path, 'd.duckdb')];
      const r = await fragsync([
        ...args,
        '--queue-prefix',
        uniquePrefix('busy'),
        '--port',
        String(busy.port),
      ]);
      expect(r.code).toBe(EXIT.badInput);
      expect(said(r)).toEqual([
        `fragsync dashboard: cannot listen on 127.0.0.1:${busy.port}: the port is in use (--host, --port)`,
      ]);
    } finally {
      await busy.close();
    }
  });
});
