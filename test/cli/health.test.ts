import { utimes } from 'node:fs/promises';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.ts';
import { closedPort, fragsync } from '../helpers/cli.ts';
import { tempDir, uniquePrefix } from '../helpers/tmp.ts';
import { cleanPrefix, startWorker } from '../helpers/worker-process.ts';

/** `fragsync health`, the containers' healthcheck, against a real worker's heartbeat. */

let dir: { path: string; cleanup(): Promise<void> };
beforeAll(async () => {
  dir = await tempDir('fragsync-health-');
});
afterAll(() => dir.cleanup());

describe('fragsync health', () => {
  it('a running worker renews its heartbeat; a stale or missing one is unhealthy (exit 1, one line)', async () => {
    const redisUrl = inject('redisUrl');
    const prefix = uniquePrefix('health');
    const file = join(dir.path, 'worker.alive');
    const worker = await startWorker(redisUrl, prefix, ['--heartbeat', file]);
    try {
      await expect
        .poll(async () => (await fragsync(['health', '--heartbeat', file])).code, { timeout: 10_000 })
        .toBe(EXIT.ok);
    } finally {
      await worker.stop();
      await cleanPrefix(redisUrl, prefix);
    }
    // The worker is gone: its file ages past --max-age.
    const old = new Date(Date.now() - 120_000);
    await utimes(file, old, old);
    const stale = await fragsync(['health', '--heartbeat', file, '--max-age', '30']);
    expect(stale.code).toBe(EXIT.unexpected);
    expect(stale.stderr).toMatch(
      /^fragsync health: unhealthy: heartbeat 1[12]\d s old \(more than 30 s\)\n$/,
    );
    const missing = await fragsync(['health', '--heartbeat', join(dir.path, 'none')]);
    expect(missing.code).toBe(EXIT.unexpected);
    expect(missing.stderr).toMatch(/^fragsync health: unhealthy: no heartbeat at \S+none\n$/);
  });

  it('--url: any HTTP answer below 500 is healthy; no answer or a 5xx is not', async () => {
    let status = 401;
    const server = createServer((_req, res) => res.writeHead(status).end());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as { port: number };
    try {
      expect((await fragsync(['health', '--url', `http://127.0.0.1:${port}/`])).code).toBe(EXIT.ok);
      status = 503;
      const failing = await fragsync(['health', '--url', `http://127.0.0.1:${port}/`]);
      expect(failing.code).toBe(EXIT.unexpected);
      expect(failing.stderr).toBe(`fragsync health: unhealthy: http://127.0.0.1:${port}/ answered 503\n`);
    } finally {
      server.close();
    }
    const down = await fragsync(['health', '--url', `http://127.0.0.1:${await closedPort()}/`]);
    expect(down.code).toBe(EXIT.unexpected);
    expect(down.stderr).toMatch(/did not answer/);
    expect((await fragsync(['health'])).code).toBe(EXIT.badInput);
  });
});
