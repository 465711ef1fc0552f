import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startRedisServer, type RedisServerHandle } from './helpers/redis-server.ts';

let started: RedisServerHandle | undefined;
let spoolRoot: string | undefined;

/**
 * Tests use REDIS_URL when it is set; otherwise one private redis-server is started on a
 * free port for the whole run (and stopped after), so no test ever touches a Redis it did
 * not start unless the user asked for it.
 */
export async function setup(project: TestProject): Promise<void> {
  // Worker spools (queue.spoolDir) of every process the tests start, instead of the user's
  // ~/.local/state; the test files and the processes they spawn inherit it.
  spoolRoot = mkdtempSync(join(tmpdir(), 'fragsync-spools-'));
  process.env.FRAGSYNC_SPOOL_DIR = spoolRoot;
  let url = process.env.REDIS_URL;
  if (!url) {
    started = await startRedisServer();
    url = started.url;
  }
  project.provide('redisUrl', url);
  project.provide('redisOwned', started !== undefined);
}

export async function teardown(): Promise<void> {
  await started?.stop();
  if (spoolRoot) rmSync(spoolRoot, { recursive: true, force: true });
}
