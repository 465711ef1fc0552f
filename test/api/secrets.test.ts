import { afterAll, beforeAll, expect, it } from 'vitest';
import { FragranceClient } from '../../src/api/client.ts';
import { startSimulator, type Simulator } from '../../src/simulator/index.ts';
import { freePort } from '../helpers/redis-server.ts';
import { SECRET_KEY, captureLogger, expectNoSecret } from './helpers.ts';

/** The API key never appears in an error or a log line, whatever went wrong. */
let sim: Simulator;
const log = captureLogger();
let client: FragranceClient;

beforeAll(async () => {
  sim = await startSimulator({ fragrances: 15, seed: 2, keys: [SECRET_KEY], variant: { errorBody: 'text' } });
  client = new FragranceClient({
    baseUrl: sim.url,
    apiKey: SECRET_KEY,
    logger: log.logger,
    maxRetries: 1,
    retryBaseMs: 1,
  });
});
afterAll(async () => {
  await client.close();
  await sim.close();
});

async function failure(fn: () => Promise<unknown>): Promise<unknown> {
  const err = await fn().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(Error);
  return err;
}

it('no error kind carries the key, in any rendering or when pino serializes it', async () => {
  const id = sim.groundTruth().fragrances[0]!.id;
  const errors: unknown[] = [];
  errors.push(await failure(() => client.search({ q: 'x' }))); // refused before sending
  errors.push(await failure(() => client.getFragrance('nope/nope'))); // 404, text body
  for (const fault of [{ errorRate: 1 }, { resetRate: 1 }, { truncateRate: 1 }] as const) {
    sim.setFaults(fault);
    errors.push(await failure(() => client.getFragrance(id)));
    sim.setFaults({ errorRate: 0, resetRate: 0, truncateRate: 0 });
  }
  sim.setRemaining(0);
  errors.push(await failure(() => client.getFragrance(id))); // 429
  sim.setRemaining(100);
  sim.topUp(-sim.clock().balanceCents);
  errors.push(await failure(() => client.getFragrance(id))); // 402
  sim.topUp(100);
  const unreachable = new FragranceClient({
    baseUrl: `http://127.0.0.1:${await freePort()}`,
    apiKey: SECRET_KEY,
    logger: log.logger,
    maxRetries: 0,
  });
  errors.push(await failure(() => unreachable.trending())); // never sent
  await unreachable.close();

  const codes = errors.map((e) => (e as { code?: string }).code);
  expect(codes).toEqual([
    'REQUEST_INVALID',
    'NOT_FOUND',
    'API_SERVER_ERROR',
    'NETWORK',
    'NETWORK',
    'RATE_LIMITED',
    'PAYMENT_REQUIRED',
    'NETWORK',
  ]);
  for (const err of errors) log.logger.error({ err }, 'failed');
  for (const err of errors) expectNoSecret(SECRET_KEY, err, log.lines);
  expect(log.lines.some((l) => l.includes('RATE_LIMITED'))).toBe(true);
});

it('a wrong key is not echoed either', async () => {
  const wrong = `${SECRET_KEY}-old`;
  const c = new FragranceClient({ baseUrl: sim.url, apiKey: wrong, logger: log.logger });
  const err = await failure(() => c.listCharts());
  log.logger.error({ err }, 'failed');
  expectNoSecret(wrong, err, log.lines);
  expectNoSecret(SECRET_KEY, err, log.lines);
  await c.close();
});
