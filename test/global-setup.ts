import type { TestProject } from 'vitest/node';
import { startRedisServer, type RedisServerHandle } from './helpers/redis-server.ts';

let started: RedisServerHandle | undefined;

/**
 * Tests use REDIS_URL when it is set; otherwise one private redis-server is started on a
 * free port for the whole run (and stopped after), so no test ever touches a Redis it did
 * not start unless the user asked for it.
 */
export async function setup(project: TestProject): Promise<void> {
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
}
