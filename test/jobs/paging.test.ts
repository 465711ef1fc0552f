import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accords } from '../../jobs/accords.ts';
import { brandCatalogue } from '../../jobs/brand-catalogue.ts';
import { fragranceReviews } from '../../jobs/fragrance-reviews.ts';
import { fragrancesPage } from '../../jobs/fragrances-page.ts';
import { notesPage } from '../../jobs/notes-page.ts';
import { walkAll, WalkStopped } from '../../jobs/paging.ts';
import { PartialResultError, type JobContext, type JobMark } from '../../jobs/types.ts';
import { FragranceClient } from '../../src/api/client.ts';
import type { BrandCatalogueItem, ReviewsItem } from '../../src/domain/items.ts';
import { startSimulator } from '../../src/simulator/index.ts';
import type { GroundTruth, Simulator } from '../../src/simulator/types.ts';

/**
 * Every paginated walk pages as the service says it pages: a service that serves 7 items a
 * page whatever is asked (and says so in pagination.limit) is read to the end, by the page
 * size it used; a walk that cannot be known complete says so and removes nothing.
 */
let sim: Simulator;
let truth: GroundTruth;
let client: FragranceClient;
beforeAll(async () => {
  sim = await startSimulator({ fragrances: 80, seed: 5, variant: { pageCap: 7, edgeValues: true } });
  truth = sim.groundTruth();
  client = new FragranceClient({ baseUrl: sim.url, apiKey: 'sim-key' });
});
afterAll(async () => {
  await client.close();
  await sim.close();
});

function ctx(c: FragranceClient = client): JobContext {
  return {
    log: pino({ level: 'silent' }),
    client: c,
    settings: {
      reviews: { mode: 'all', newest: 50 },
      similar: true,
      wearing: true,
      reviewDigest: false,
      brands: true,
      perfumers: true,
    },
    signal: new AbortController().signal,
  };
}

const walkOf = (marks: JobMark[]) =>
  marks.find((m) => m.kind === 'walk') as Extract<JobMark, { kind: 'walk' }>;

describe('walks at the page size the service used', () => {
  it('the fragrance and note lists: page 1 schedules every page of ceil(total / 7)', async () => {
    for (const [run, all] of [
      [fragrancesPage, truth.fragrances.map((f) => f.id)],
      [notesPage, truth.notes.map((n) => n.slug)],
    ] as const) {
      const first = await run(ctx(), { page: 1 });
      const mark = walkOf(first.progress);
      expect(mark.pageSize).toBe(7);
      const pages = Math.ceil(mark.total / 7);
      expect(first.follow.map((j) => (j.payload as { page: number }).page)).toEqual(
        Array.from({ length: pages - 1 }, (_, i) => i + 2),
      );
      const keys = new Set<string>();
      for (const result of [
        first,
        ...(await Promise.all(first.follow.map((j) => run(ctx(), j.payload as { page: number })))),
      ])
        for (const item of result.items) keys.add('id' in item ? item.id : (item as { slug: string }).slug);
      expect(keys).toEqual(new Set(all));
    }
  });

  it('accords: every page read, the walk known complete', async () => {
    const r = await accords(ctx(), {});
    expect(r.items.map((a) => (a as { slug: string }).slug)).toEqual(truth.accords.map((a) => a.slug));
    expect(walkOf(r.progress)).toEqual({
      kind: 'walk',
      walk: 'accords',
      page: 13,
      total: 90,
      done: true,
      pageSize: 7,
    });
  });

  it('a brand catalogue: every page read (entries named twice once), complete', async () => {
    const brand = truth.brands.find((b) => truth.brandCatalogues[b.slug]!.length > 14)!;
    const r = await brandCatalogue(ctx(), { slug: brand.slug });
    const item = r.items[0] as BrandCatalogueItem;
    expect(item.fragrances).toEqual(truth.brandCatalogues[brand.slug]);
    expect(item.complete).toBeUndefined();
    expect(walkOf(r.progress)).toMatchObject({ walk: `brand:${brand.slug}`, done: true, pageSize: 7 });
  });

  it('a brand catalogue whose total moves while it is read is not known complete: it removes nothing', async () => {
    const brand = truth.brands.find((b) => truth.brandCatalogues[b.slug]!.length > 14)!;
    const moving = Object.create(client) as FragranceClient;
    moving.getBrandFragrances = async (slug, p, signal) => {
      const res = await client.getBrandFragrances(slug, p, signal);
      const { pagination } = res.data;
      return {
        ...res,
        data: { ...res.data, pagination: { ...pagination, total: pagination.total + (p?.page ?? 1) - 1 } },
      };
    };
    const r = await brandCatalogue(ctx(moving), { slug: brand.slug });
    expect((r.items[0] as BrandCatalogueItem).complete).toBe(false);
    expect(walkOf(r.progress).done).toBe(false);
    // Still recorded as fetched: the members it read are loaded.
    expect(r.progress).toContainEqual({
      kind: 'fetched',
      entity: 'brand',
      key: brand.slug,
      dataset: 'catalogue',
    });
  });

  it('reviews: a fragrance with many pages of 7 is read whole', async () => {
    const f = truth.fragrances.find((x) => truth.reviews[x.id]!.length > 30)!;
    const r = await fragranceReviews(ctx(), { id: f.id, knownTotal: null, knownCount: null });
    const item = r.items[0] as ReviewsItem;
    expect(item.total).toBe(truth.reviews[f.id]!.length);
    expect(item.dates).toEqual(truth.reviews[f.id]!.map((x) => x.date));
    expect(item.texts).toEqual(truth.reviews[f.id]!.map((x) => x.text));
  });
});

/** A client whose calls of `method` count how many are in flight at once (the most seen). */
function counting(method: 'getBrandFragrances' | 'getReviews'): { client: FragranceClient; peak(): number } {
  let now = 0;
  let peak = 0;
  const c = Object.create(client) as FragranceClient;
  const real = client[method].bind(client) as (...a: unknown[]) => Promise<unknown>;
  (c as unknown as Record<string, unknown>)[method] = async (...args: unknown[]) => {
    peak = Math.max(peak, ++now);
    try {
      return await real(...args);
    } finally {
      now--;
    }
  };
  return { client: c, peak: () => peak };
}

describe('pages after the first are read side by side (latency hidden)', () => {
  it('a brand catalogue asks for every page after page 1 at once', async () => {
    const brand = truth.brands.find((b) => truth.brandCatalogues[b.slug]!.length > 21)!;
    const pages = Math.ceil(truth.brandCatalogues[brand.slug]!.length / 7);
    const { client: c, peak } = counting('getBrandFragrances');
    const r = await brandCatalogue(ctx(c), { slug: brand.slug });
    expect((r.items[0] as BrandCatalogueItem).fragrances).toEqual(truth.brandCatalogues[brand.slug]);
    expect(peak()).toBe(pages - 1);
  });

  it("a fragrance's review pages likewise, and the read is the same as in order", async () => {
    const f = truth.fragrances.find((x) => truth.reviews[x.id]!.length > 30)!;
    const pages = Math.ceil(truth.reviews[f.id]!.length / 7);
    const { client: c, peak } = counting('getReviews');
    const r = await fragranceReviews(ctx(c), { id: f.id, knownTotal: null, knownCount: null });
    expect((r.items[0] as ReviewsItem).dates).toEqual(truth.reviews[f.id]!.map((x) => x.date));
    expect(peak()).toBe(pages - 1);
  });

  it('a page that fails is thrown only once every other page has settled (each is a paid call)', async () => {
    const settled: number[] = [];
    const read = async (page: number) => {
      if (page === 2) throw new Error('page 2 refused');
      await new Promise((resolve) => setTimeout(resolve, 30 * page));
      settled.push(page);
      return { data: [page], pagination: { page, limit: 1, total: 5 } };
    };
    await expect(walkAll(read)).rejects.toThrow('page 2 refused');
    expect(settled.sort()).toEqual([1, 3, 4, 5]);
  });
});

describe('a walk stopped part-way keeps what it bought (no page bought twice)', () => {
  const listing = (total: number) => async (page: number) => ({
    data: [page * 10],
    pagination: { page, limit: 1, total },
  });

  it('a page refused between pages that came back: those pages kept, only the refused one read again', async () => {
    const stop = await walkAll(async (page) => {
      if (page === 3) throw new Error('page 3 refused');
      return listing(5)(page);
    }).catch((err: unknown) => err);
    expect(stop).toBeInstanceOf(WalkStopped);
    const at = (stop as WalkStopped<number>).at;
    expect(at).toEqual({ size: 1, total: 5, pages: [[10], [20], null, [40], [50]] });
    const asked: number[] = [];
    const walked = await walkAll(async (page) => {
      asked.push(page);
      return listing(5)(page);
    }, at);
    expect(asked).toEqual([3]);
    expect(walked).toMatchObject({ entries: [10, 20, 30, 40, 50], pages: 5, complete: true });
  });

  it('a list that moved since the stop is read again from page 1', async () => {
    const asked: number[] = [];
    const walked = await walkAll(
      async (page) => {
        asked.push(page);
        return listing(6)(page);
      },
      { size: 1, total: 5, pages: [[10], [20], null, [40], [50]] },
    );
    expect(asked).toEqual([3, 1, 2, 3, 4, 5, 6]);
    expect(walked).toMatchObject({ entries: [10, 20, 30, 40, 50, 60], complete: true });
  });

  it('the accord list stopped by a real 402 after page 1: the page kept, the next read buys pages 2.. only', async () => {
    const calls = () => sim.ledger().byEndpoint['/v1/accords']?.calls ?? 0;
    const before = calls();
    sim.drainAfter((r) => r.startsWith('GET /v1/accords?page=1&'));
    const stop = await accords(ctx(), {}).catch((err: unknown) => err);
    sim.topUp(1e9);
    expect(stop).toBeInstanceOf(PartialResultError);
    const { partial, next } = stop as PartialResultError;
    expect(walkOf(partial.progress)).toMatchObject({ walk: 'accords', page: 1, done: false, pageSize: 7 });
    expect(partial.items.map((a) => (a as { slug: string }).slug)).toEqual(
      truth.accords.slice(0, 7).map((a) => a.slug),
    );
    const resumed = await accords(ctx(), next.payload as { resume?: never });
    expect(resumed.items.map((a) => (a as { slug: string }).slug)).toEqual(truth.accords.map((a) => a.slug));
    expect(walkOf(resumed.progress)).toMatchObject({ done: true, page: 13 });
    // 1 page, 12 refused (402s: counted, not billed), then the 12 again.
    expect(calls() - before).toBe(1 + 12 + 12);
  });
});
