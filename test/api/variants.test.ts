import { afterEach, describe, expect, it } from 'vitest';
import { FragranceClient } from '../../src/api/client.ts';
import { ApiError, parseErrorBody } from '../../src/api/errors.ts';
import { startSimulator, type Simulator, type SimulatorOptions } from '../../src/simulator/index.ts';

/** Other legal readings of the spec's "not shown" parts: the client must work with each. */
const open: { sim: Simulator; client: FragranceClient }[] = [];

async function start(variant: SimulatorOptions['variant']) {
  const sim = await startSimulator({ fragrances: 25, seed: 5, variant });
  const client = new FragranceClient({ baseUrl: sim.url, apiKey: 'sim-key', retryBaseMs: 1 });
  open.push({ sim, client });
  return { sim, client, truth: sim.groundTruth() };
}

afterEach(async () => {
  for (const { sim, client } of open.splice(0)) {
    await client.close();
    await sim.close();
  }
});

describe('simulator variants', () => {
  it('opaque ids', async () => {
    const { client, truth } = await start({ idStyle: 'opaque' });
    const f = truth.fragrances[0]!;
    expect(f.id).not.toContain('/');
    expect((await client.getFragrance(f.id)).data).toEqual(f);
    expect((await client.getReviews(f.id, { limit: 50 })).data.reviews).toEqual(
      truth.reviews[f.id]!.slice(0, 50),
    );
    const batch = await client.batch(truth.fragrances.slice(0, 5).map((x) => x.id));
    expect(batch.data.fragrances).toHaveLength(5);
  });

  it('plain-text error bodies keep their code and the raw text', async () => {
    const { client } = await start({ errorBody: 'text' });
    const err = (await client.getFragrance('nope/nope').catch((e: unknown) => e)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err.code).toBe('NOT_FOUND');
    expect(err.apiCode).toBe('NOT_FOUND');
    expect(err.apiMessage).toContain('nope/nope');
    expect(err.rawBody).toMatch(/^NOT_FOUND: /);
    expect(err.rawBody!.length).toBeLessThanOrEqual(500);
  });

  it('unknown extra fields are stripped, known ones intact', async () => {
    const { client, truth, sim } = await start({ extraFields: true });
    const f = truth.fragrances[1]!;
    const raw = (await (
      await fetch(`${sim.url}/v1/fragrances/${f.id}`, { headers: { authorization: 'Bearer sim-key' } })
    ).json()) as Record<string, unknown>;
    const extra = Object.keys(raw).filter((k) => !(k in f));
    expect(extra.length).toBeGreaterThan(0);
    const res = await client.getFragrance(f.id);
    expect(res.data).toEqual(f); // nested objects (notes, accords) stripped too
    for (const k of extra) expect(res.data).not.toHaveProperty(k);
    expect((await client.listNotes({ limit: 50 })).data.data.length).toBeGreaterThan(0);
    expect((await client.getWearingStats(f.id)).data.fragranceId).toBe(f.id);
  });

  it('another code for other 400s reaches apiCode', async () => {
    const { sim } = await start({ bad400Code: 'VALIDATION_FAILED', errorBody: 'text' });
    // The client never sends an out-of-bounds limit, so ask the service directly...
    const res = await fetch(`${sim.url}/v1/notes?limit=51`, { headers: { authorization: 'Bearer sim-key' } });
    expect(res.status).toBe(400);
    const text = await res.text();
    expect(text).toContain('VALIDATION_FAILED');
    // ...and check that the client's reading of such a body finds the code.
    expect(parseErrorBody(text).apiCode).toBe('VALIDATION_FAILED');
  });
});
