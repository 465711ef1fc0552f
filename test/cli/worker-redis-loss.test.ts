import { describe, expect, it } from 'vitest';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.ts';
import { uniquePrefix } from '../helpers/tmp.ts';
import { startWorker } from '../helpers/worker-process.ts';

/**
 * `fragsync worker` whose Redis goes away (a redis-server this test starts, stops and starts
 * again on the same port): one line when it loses Redis, one when Redis is back, nothing in
 * between (it retries with backoff), and SIGTERM ends it within seconds whatever the state
 * of Redis (before: a raw ECONNREFUSED stack dump per retry, and SIGTERM ignored).
 */

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(cond: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  // Condition-based: polled, with a generous limit for a busy machine.
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** A redis-server again on `port` (the test's own, stopped before). */
async function restartOn(port: number): Promise<RedisServerHandle> {
  for (;;) {
    const s = await startRedisServer(port).catch(() => null);
    if (s) return s;
    await sleep(100);
  }
}

describe('a worker that loses Redis', () => {
  it('says so once, says once that it is back, and exits promptly on SIGTERM with Redis away', async () => {
    let server = await startRedisServer();
    const port = server.port;
    const w = await startWorker(server.url, uniquePrefix('worker-loss'), ['--log-level', 'info']);
    const text = () => w.output.join('');
    const lines = () =>
      text()
        .split('\n')
        .filter((l) => l.trim() !== '');
    try {
      const before = lines().length;
      await server.stop();
      await until(() => /lost Redis/.test(text()), 'the loss line');
      // Four seconds of retries without Redis (ioredis retries after 50 ms, 100 ms, ... : a
      // dozen of them): nothing more is said.
      await sleep(4_000);
      const during = lines().slice(before);
      expect(
        during.filter((l) => /lost Redis/.test(l)),
        during.join('\n'),
      ).toHaveLength(1);
      expect(during, during.join('\n')).toHaveLength(1);
      expect(text()).not.toMatch(/ECONNREFUSED\n\s+at /);

      server = await restartOn(port);
      await until(() => /Redis is back/.test(text()), 'the back line');
      expect(
        lines()
          .slice(before)
          .filter((l) => /Redis is back/.test(l)),
      ).toHaveLength(1);

      // Away again, then SIGTERM: the worker ends within seconds.
      await server.stop();
      await until(
        () =>
          lines()
            .slice(before)
            .filter((l) => /lost Redis/.test(l)).length === 2,
        'the second loss line',
      );
      const exited = new Promise<number | null>((r) => w.child.once('exit', (code) => r(code)));
      const t0 = Date.now();
      w.child.kill('SIGTERM');
      // Before, it never ended: wait long, say how long it took.
      const code = await Promise.race([exited, sleep(30_000).then(() => 'still running')]);
      console.log(`[worker-redis] ${code} ${Date.now() - t0} ms after SIGTERM with Redis away`);
      expect(code).toBe(0);
    } finally {
      await w.stop();
      await server.stop();
    }
  }, 120_000);
});
