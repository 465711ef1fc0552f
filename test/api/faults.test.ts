import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FragranceClient, type ClientOptions } from '../../src/api/client.ts';
import { ApiError } from '../../src/api/errors.ts';
import { startSimulator, type GroundTruth, type Simulator } from '../../src/simulator/index.ts';
import { SECRET_KEY, ScriptedGovernor, callRecorder, captureLogger, expectNoSecret } from './helpers.ts';

/**
 * Retries over real HTTP: every attempt passes the governor and lands in the ledger. Each
 * test has its own simulator and logger, so none depends on what another left behind (an
 * aborted request the simulator is still answering, faults, log lines).
 */
let sim: Simulator;
let truth: GroundTruth;
let log: ReturnType<typeof captureLogger>;
const clients: FragranceClient[] = [];

beforeEach(async () => {
  sim = await startSimulator({ fragrances: 20, seed: 11, keys: [SECRET_KEY] });
  truth = sim.groundTruth();
  log = captureLogger();
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await sim.close();
});

function setup(opts: Partial<ClientOptions> = {}) {
  const rec = callRecorder();
  const gov = new ScriptedGovernor();
  const client = new FragranceClient({
    baseUrl: sim.url,
    apiKey: SECRET_KEY,
    onCall: rec.onCall,
    admission: gov,
    logger: log.logger,
    maxRetries: 3,
    retryBaseMs: 1,
    retryMaxMs: 4,
    ...opts,
  });
  clients.push(client);
  return { client, rec, gov };
}

async function caught(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  expectNoSecret(SECRET_KEY, err, log.lines);
  return err as ApiError;
}

describe('5xx', () => {
  it('retries a 500 until the attempts run out, reporting each one', async () => {
    sim.setFaults({ errorRate: 1 });
    const { client, rec, gov } = setup();
    const calls = sim.ledger().calls;
    const err = await caught(client.getFragrance(truth.fragrances[0]!.id));
    expect(err.code).toBe('API_SERVER_ERROR');
    expect(err.status).toBe(500);
    expect(err.transient).toBe(true);
    expect(rec.calls.map((c) => c.status)).toEqual([500, 500, 500, 500]);
    expect(rec.calls.every((c) => c.costCents === 1 && c.endpoint === '/v1/fragrances/{id}')).toBe(true);
    expect(sim.ledger().calls - calls).toBe(4);
    expect(gov.admitted).toHaveLength(4);
    expect(gov.settled.map((s) => s.outcome.status)).toEqual([500, 500, 500, 500]);
    expect(gov.settled[0]!.outcome.rateLimit.remaining).toEqual(expect.any(Number));
  });

  it('succeeds after some 500s, and the ledgers agree', async () => {
    sim.setFaults({ errorRate: 0.5 });
    const { client, rec } = setup({ maxRetries: 10 });
    const before = sim.ledger();
    for (const f of truth.fragrances.slice(0, 10)) {
      expect((await client.getFragrance(f.id)).data.id).toBe(f.id);
    }
    const after = sim.ledger();
    expect(rec.calls.length).toBe(after.calls - before.calls);
    expect(rec.calls.filter((c) => c.status === 500).length).toBeGreaterThan(0);
    expect(rec.calls.filter((c) => c.status === 200)).toHaveLength(10);
  });
});

describe('connection resets', () => {
  it('are retried; each attempt is a call with status 0', async () => {
    sim.setFaults({ resetRate: 1 });
    const { client, rec, gov } = setup();
    const err = await caught(client.getWearingStats(truth.fragrances[1]!.id));
    expect(err.code).toBe('NETWORK');
    expect(err.transient).toBe(true);
    expect(rec.calls.map((c) => c.status)).toEqual([0, 0, 0, 0]);
    expect(rec.calls.every((c) => c.costCents === 2 && c.quotaRemaining === null)).toBe(true);
    expect(gov.settled.map((s) => s.outcome.status)).toEqual([0, 0, 0, 0]);
    expect(gov.released).toHaveLength(0);
  });

  it('a reset followed by a good answer succeeds', async () => {
    sim.setFaults({ resetRate: 0.5 });
    const { client, rec } = setup({ maxRetries: 10 });
    for (const f of truth.fragrances.slice(0, 8))
      expect((await client.getFragrance(f.id)).data.id).toBe(f.id);
    expect(rec.calls.filter((c) => c.status === 0).length).toBeGreaterThan(0);
  });
});

describe('truncated bodies', () => {
  it('are retried; the attempts carry the 200 that was billed', async () => {
    sim.setFaults({ truncateRate: 1 });
    const { client, rec } = setup();
    const before = sim.ledger().cents;
    const err = await caught(client.getSimilar(truth.fragrances[2]!.id, { limit: 50 }));
    expect(err.transient).toBe(true);
    expect(rec.calls.map((c) => c.status)).toEqual([200, 200, 200, 200]);
    expect(sim.ledger().cents - before).toBe(rec.calls.reduce((s, c) => s + c.costCents, 0));
  });

  it('a truncated body followed by a whole one succeeds', async () => {
    sim.setFaults({ truncateRate: 0.5 });
    const { client, rec } = setup({ maxRetries: 10 });
    for (const f of truth.fragrances.slice(0, 8)) {
      expect((await client.getReviews(f.id, { limit: 50 })).data.fragranceId).toBe(f.id);
    }
    expect(rec.calls.length).toBeGreaterThan(8);
  });
});

describe('timeouts', () => {
  it('a response slower than headersTimeoutMs is a call with status 0, retried', async () => {
    // undici arms header timeouts on a coarse clock (ticks of ~0.5 s): leave a wide margin.
    sim.setFaults({ latencyMs: 2_000 });
    const { client, rec, gov } = setup({ headersTimeoutMs: 100, maxRetries: 1 });
    const err = await caught(client.trending());
    expect(err.code).toBe('NETWORK');
    expect(rec.calls.map((c) => c.status)).toEqual([0, 0]);
    expect(gov.settled).toHaveLength(2);
  });

  it('an abort signal stops retrying and still records the attempt in flight', async () => {
    sim.setFaults({ latencyMs: 300 });
    const { client, rec, gov } = setup();
    const ac = new AbortController();
    setTimeout(() => ac.abort(new Error('shutting down')), 50);
    await expect(client.trending(ac.signal)).rejects.toThrow('shutting down');
    expect(rec.calls.map((c) => c.status)).toEqual([0]);
    expect(gov.settled).toHaveLength(1);
  });
});

describe('logs', () => {
  it('log every attempt without the key', async () => {
    sim.setFaults({ errorRate: 1 });
    const { client, rec } = setup();
    await caught(client.getFragrance(truth.fragrances[3]!.id));
    sim.setFaults({ errorRate: 0, resetRate: 1 });
    await caught(client.getWearingStats(truth.fragrances[3]!.id));
    expect(rec.calls).toHaveLength(8);
    const parsed = log.lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const attempts = parsed.filter((l) => l.msg === 'api call');
    expect(attempts.map((l) => l.status)).toEqual([500, 500, 500, 500, 0, 0, 0, 0]);
    expect(parsed.filter((l) => l.msg === 'api call will be retried')).toHaveLength(6);
    for (const line of log.lines) expect(line).not.toContain(SECRET_KEY);
    for (const line of log.lines) expect(line.toLowerCase()).not.toContain('authorization');
  });
});
