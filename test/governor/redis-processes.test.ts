import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Redis } from 'ioredis';
import { createRedisGovernor, reserveFor } from '../../src/governor/index.ts';
import { uniquePrefix } from '../helpers/tmp.ts';
import { hammer } from './fixtures.ts';
import { CHILD_LIMITS, connect, deletePrefix, redisService, spawnChild } from './redis-helpers.ts';

/**
 * One quota, many processes: governors on separate connections and in separate Node
 * processes share a prefix and a fake service whose quota counter lives in Redis.
 */
let url: string;
let redisA: Redis;
let redisB: Redis;
const prefixes: string[] = [];
const newPrefix = () => {
  const p = uniquePrefix('govproc');
  prefixes.push(p);
  return p;
};
const tomorrow = () => Math.ceil(Date.now() / 86_400_000) * 86_400_000 + 86_400_000;

beforeAll(() => {
  url = inject('redisUrl');
  redisA = connect(url);
  redisB = connect(url);
});

afterAll(async () => {
  for (const p of prefixes) await deletePrefix(redisA, p);
  await Promise.all([redisA.quit(), redisB.quit()]);
});

describe('redis governor across connections and processes', () => {
  it('two connections hammering admit/settle never take more than limit − reserve', async () => {
    const prefix = newPrefix();
    const limit = 400;
    const service = redisService(redisA, prefix, limit, tomorrow());
    await service.init();
    const govA = createRedisGovernor(redisA, { prefix, limits: CHILD_LIMITS });
    const govB = createRedisGovernor(redisB, { prefix, limits: CHILD_LIMITS });
    const admitted = await hammer([govA, govB], service, 10);
    const reserve = reserveFor(limit, CHILD_LIMITS); // max(5, 12)
    expect(admitted).toBe(limit - reserve);
    expect(await service.calls()).toBe(limit - reserve); // no 429 was ever provoked
    expect(await service.remaining()).toBe(reserve);
    expect((await govB.admit('search')).ok).toBe(false);
  });

  it('three processes hammering one prefix stop exactly at the reserve', async () => {
    const prefix = newPrefix();
    const limit = 300;
    const reset = tomorrow();
    const service = redisService(redisA, prefix, limit, reset);
    await service.init();
    const args = (n: number) => ['hammer', url, prefix, String(limit), String(reset), String(n)];
    const children = [spawnChild(args(6)), spawnChild(args(6))];
    const local = createRedisGovernor(redisA, { prefix, limits: CHILD_LIMITS });
    const localAdmitted = await hammer([local], service, 6);
    const childAdmitted = await Promise.all(
      children.map(async (c) => (JSON.parse(await c.firstLine) as { admitted: number }).admitted),
    );
    const total = localAdmitted + childAdmitted.reduce((a, b) => a + b, 0);
    const reserve = reserveFor(limit, CHILD_LIMITS); // max(5, 9)
    expect(total).toBe(limit - reserve);
    expect(await service.calls()).toBe(limit - reserve);
    expect(await service.remaining()).toBe(reserve);
    expect(await local.pausedUntil()).not.toBeNull();
  });

  it('a SIGKILLed process’s ticket blocks the probe only until its TTL, and its cents are counted', async () => {
    const prefix = newPrefix();
    const { child, firstLine, exited } = spawnChild(['admit-and-hang', url, prefix]);
    const admission = JSON.parse(await firstLine) as { ok: boolean };
    expect(admission.ok).toBe(true);
    child.kill('SIGKILL');
    await exited;
    // The child admitted the window's probe: nobody else may call until it settles or expires.
    let offsetMs = 0;
    const gov = createRedisGovernor(redisB, {
      prefix,
      limits: CHILD_LIMITS,
      now: () => Date.now() + offsetMs,
    });
    expect(await gov.admit('search')).toMatchObject({ ok: false, reason: 'busy' });
    offsetMs = 60_001; // the child's ticket TTL is the default 60 s
    const next = await gov.admit('search');
    expect(next.ok).toBe(true);
    expect(await gov.status()).toMatchObject({
      inFlight: 1,
      inFlightCents: 1,
      centsThisRun: 2,
      callsThisRun: 1,
    });
  });
});
