import { describe, expect, it } from 'vitest';
import { startSimulator, type GroundTruth, type SimilarLists } from '../../src/simulator/index.ts';
import { call } from './http.ts';

/** One day on 300 fragrances (3 releases, one discontinued, one reformulated) in either mode. */
async function day(similarLists: SimilarLists) {
  const sim = await startSimulator({ fragrances: 300, seed: 5, changeModel: { similarLists } });
  try {
    const before = sim.groundTruth();
    sim.advanceDay();
    const after = sim.groundTruth();
    const had = new Map(before.fragrances.map((f) => [f.id, f]));
    const added = new Set(after.fragrances.filter((f) => !had.has(f.id)).map((f) => f.id));
    const live = new Set(after.fragrances.map((f) => f.id));
    const reformulated = new Set(
      after.fragrances
        .filter((f) => had.has(f.id) && JSON.stringify(had.get(f.id)!.accords) !== JSON.stringify(f.accords))
        .map((f) => f.id),
    );
    return { before, after, added, live, reformulated };
  } finally {
    await sim.close();
  }
}

const ids = (t: GroundTruth, id: string) => t.similar[id]!.map((e) => e.id);

describe('similar lists and a day of releases (change model similarLists)', () => {
  it('live: releases enter older lists the day they appear', async () => {
    const d = await day('live');
    expect(d.added.size).toBe(3);
    const entered = Object.keys(d.before.similar).filter(
      (id) => d.live.has(id) && ids(d.after, id).some((x) => d.added.has(x)),
    );
    expect(entered.length).toBeGreaterThan(10);
  });

  it('fixed: older lists take in no release, only lose the discontinued; releases and reformulations get lists of their own', async () => {
    const d = await day('fixed');
    expect(d.added.size).toBe(3);
    expect(d.reformulated.size).toBeGreaterThan(0);
    let shortened = 0;
    for (const [id, list] of Object.entries(d.before.similar)) {
      if (!d.live.has(id) || d.reformulated.has(id)) continue;
      const kept = list.filter((e) => d.live.has(e.id));
      expect(d.after.similar[id]).toEqual(kept);
      if (kept.length < list.length) shortened++;
    }
    expect(shortened).toBeGreaterThan(0);
    for (const id of [...d.added, ...d.reformulated]) expect(d.after.similar[id]!.length).toBeGreaterThan(0);
    for (const id of d.reformulated) expect(d.after.similar[id]).not.toEqual(d.before.similar[id]);
    // A release's own list may name another release of its day: it is computed as the day ends.
    const live = await day('live');
    for (const id of d.added) expect(d.after.similar[id]).toEqual(live.after.similar[id]);
  });

  it('is set over the control endpoint, and refuses a mode it does not know', async () => {
    const sim = await startSimulator({ fragrances: 50, seed: 2 });
    try {
      const post = (body: unknown) => call(sim, '/_sim/change-model', { key: null, body });
      expect((await call(sim, '/_sim/change-model', { key: null })).json.similarLists).toBe('fixed');
      expect((await post({ similarLists: 'live' })).json.similarLists).toBe('live');
      expect(sim.changeModel().similarLists).toBe('live');
      expect((await post({ similarLists: 'weekly' })).status).toBe(400);
    } finally {
      await sim.close();
    }
  });
});
