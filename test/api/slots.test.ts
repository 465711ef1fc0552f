import { describe, expect, it } from 'vitest';
import { FragranceClient } from '../../src/api/client.ts';
import type { CallAdmission } from '../../src/api/request.ts';
import { RequestSlots } from '../../src/api/slots.ts';
import { createMemoryGovernor } from '../../src/governor/index.ts';
import { startSimulator } from '../../src/simulator/index.ts';

describe('RequestSlots', () => {
  it('grants at most `size` at once, in the order asked', async () => {
    const slots = new RequestSlots(2);
    const order: number[] = [];
    const a = await slots.acquire();
    const b = await slots.acquire();
    expect(slots.inUse).toBe(2);
    const waiting = [3, 4, 5].map((n) => slots.acquire().then((release) => (order.push(n), release)));
    await Promise.resolve();
    expect(order).toEqual([]);
    a();
    a(); // a second call of the same release gives nothing back twice
    const third = await waiting[0]!;
    expect(order).toEqual([3]);
    expect(slots.inUse).toBe(2);
    b();
    third();
    await Promise.all(waiting.slice(1)).then((rs) => rs.forEach((r) => r()));
    expect(order).toEqual([3, 4, 5]);
    expect(slots.inUse).toBe(0);
  });

  it('an aborted waiter leaves the line and takes no permit', async () => {
    const slots = new RequestSlots(1);
    const first = await slots.acquire();
    const ctl = new AbortController();
    const aborted = slots.acquire(ctl.signal);
    const next = slots.acquire();
    ctl.abort(new Error('job aborted'));
    await expect(aborted).rejects.toThrow('job aborted');
    first();
    (await next)();
    expect(slots.inUse).toBe(0);
    await expect(slots.acquire(ctl.signal)).rejects.toThrow('job aborted');
  });
});

describe('a client with more connections than requests in flight', () => {
  it('keeps http.concurrency requests at the service however many jobs call it, and all of its views together', async () => {
    const sim = await startSimulator({ fragrances: 60, latencyMs: 40 });
    const client = new FragranceClient({
      baseUrl: sim.url,
      apiKey: 'sim-key',
      concurrency: 3,
      connections: 12,
    });
    try {
      const ids = sim
        .groundTruth()
        .fragrances.slice(0, 24)
        .map((f) => f.id);
      const meter = client.occupancy!;
      meter.start(() => 'noneReady');
      // Two views (two job attempts) share the client's slots.
      const views = [client.withCalls(() => undefined), client.withCalls(() => undefined)];
      await Promise.all(ids.map((id, i) => views[i % 2]!.getWearingStats(id)));
      expect(sim.ledger().calls).toBe(24);
      expect(sim.inFlight().peak).toBe(3);
      // The client saw the same on the wire (api/occupancy.ts): 24 requests of 40 ms or more.
      const f = meter.stop()!;
      expect(f.meanInFlight * f.wallMs).toBeGreaterThanOrEqual(24 * 40);
      expect(f.meanInFlight).toBeLessThanOrEqual(3);
      expect(f.occupancy + Object.values(f.idle).reduce((a, b) => a + b, 0)).toBeCloseTo(1);
    } finally {
      await client.close();
      await sim.close();
    }
  });
});

describe('tickets asked while the slots carry other requests', () => {
  it('holds at most http.concurrency tickets beyond the requests on the wire, and never more on the wire', async () => {
    const sim = await startSimulator({ fragrances: 40, latencyMs: 30 });
    const governor = createMemoryGovernor({
      reserveCalls: 0,
      reservePercent: 0,
      maxCentsPerRun: null,
      maxCentsPerDay: null,
      resumeJitterMs: 0,
    });
    // The real governor, counting the tickets out at once (admitted, not yet settled or released).
    let out = 0;
    let peak = 0;
    const admission: CallAdmission = {
      admit: async (e) => {
        const a = await governor.admit(e);
        if (a.ok) peak = Math.max(peak, ++out);
        return a;
      },
      settle: async (t, o) => {
        out--;
        await governor.settle(t, o);
      },
      release: async (t) => {
        out--;
        await governor.release(t);
      },
    };
    const client = new FragranceClient({ baseUrl: sim.url, apiKey: 'sim-key', concurrency: 3, admission });
    try {
      const ids = sim
        .groundTruth()
        .fragrances.slice(0, 30)
        .map((f) => f.id);
      await Promise.all(ids.map((id) => client.getWearingStats(id)));
      expect(sim.ledger().calls).toBe(30);
      expect(sim.inFlight().peak).toBe(3);
      expect(peak).toBeGreaterThan(3); // asked ahead of a free slot
      expect(peak).toBeLessThanOrEqual(6);
      expect(out).toBe(0);
      expect((await governor.status()).callsThisRun).toBe(30);
    } finally {
      await client.close();
      await sim.close();
    }
  });
});
