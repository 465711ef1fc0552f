import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';

export interface RedisServerHandle {
  url: string;
  port: number;
  process: ChildProcess;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** Start a throw-away redis-server (no persistence) on a free port, or on `port`. */
export async function startRedisServer(port?: number): Promise<RedisServerHandle> {
  port ??= await freePort();
  const dir = await mkdtemp(join(tmpdir(), 'fragsync-redis-'));
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('redis-server did not start within 10 s')), 10_000);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(new Error(`cannot start redis-server (is it installed?): ${err.message}`));
    });
    child.stdout?.on('data', (buf: Buffer) => {
      if (buf.toString().includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    process: child,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A Redis whose data a test may lose mid-run: its own throw-away server when the suite
 * started one (`owned`: only a Redis we started may be flushed), else the shared one, where
 * losing the data means deleting the prefix's keys. `close()` stops or cleans up after it.
 */
export async function losableRedis(
  sharedUrl: string,
  owned: boolean,
  prefix: string,
): Promise<{ url: string; admin: Redis; loseData(): Promise<void>; close(): Promise<void> }> {
  const own = owned ? await startRedisServer() : null;
  const url = own?.url ?? sharedUrl;
  const admin = new Redis(url);
  return {
    url,
    admin,
    loseData: async () => {
      if (own) await admin.flushall();
      else await deletePrefix(admin, prefix);
    },
    close: async () => {
      if (own) {
        admin.disconnect();
        await own.stop();
      } else {
        await deletePrefix(admin, prefix);
        admin.disconnect();
      }
    },
  };
}

/** Delete only the keys under one test prefix (never FLUSHDB: the Redis may be shared). */
export async function deletePrefix(redis: Redis, prefix: string): Promise<number> {
  let cursor = '0';
  let deleted = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 200);
    cursor = next;
    if (keys.length > 0) deleted += await redis.del(...keys);
  } while (cursor !== '0');
  return deleted;
}
