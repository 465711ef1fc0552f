import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fragranceReviews } from '../../jobs/fragrance-reviews.ts';
import { PartialResultError, type JobContext, type JobPayloads, type JobSettings } from '../../jobs/types.ts';
import { FragranceClient } from '../../src/api/client.ts';
import { startSimulator } from '../../src/simulator/index.ts';
import type { Simulator } from '../../src/simulator/types.ts';
import type { Review, ReviewsItem } from '../../src/domain/items.ts';

let sim: Simulator;
let client: FragranceClient;
let calls = 0;

const settings = (mode: 'all' | 'newest' = 'all', newest = 50): JobSettings => ({
  reviews: { mode, newest },
  similar: true,
  wearing: true,
  reviewDigest: false,
  brands: true,
  perfumers: true,
});

/**
 * A context whose client is the real client over HTTP; `beforePage` runs just before a
 * given review page is requested, so a test can make reviews arrive between two pages
 * exactly as they do upstream.
 */
function context(s: JobSettings, beforePage?: (page: number) => void): JobContext {
  const wrapped = Object.create(client) as FragranceClient;
  wrapped.getReviews = (id, p, signal) => {
    beforePage?.(p?.page ?? 1);
    return client.getReviews(id, p, signal);
  };
  return {
    log: pino({ level: 'silent' }),
    client: wrapped,
    settings: s,
    signal: new AbortController().signal,
  };
}

const key = (r: { date: string; rating: number; text: string | null }) =>
  JSON.stringify([r.date, r.rating, r.text]);
const sorted = (rs: { date: string; rating: number; text: string | null }[]) => rs.map(key).sort();
/** The item's columns as reviews again. */
const reviewsOf = (item: ReviewsItem): Review[] =>
  item.dates.map((date, i) => ({ date, rating: item.ratings[i]!, text: item.texts[i] ?? null }));

beforeAll(async () => {
  sim = await startSimulator({ fragrances: 120, seed: 3 });
  client = new FragranceClient({ baseUrl: sim.url, apiKey: 'sim-key', onCall: () => void calls++ });
});
afterAll(async () => {
  await client.close();
  await sim.close();
});

/** A fragrance with at least `min` reviews, from the ground truth. */
function fragranceWith(min: number): string {
  const t = sim.groundTruth();
  const hit = Object.entries(t.reviews).find(([, rs]) => rs.length >= min);
  if (!hit) throw new Error(`no fragrance with ${min} reviews in the catalogue`);
  return hit[0];
}

describe('fragranceReviews job', () => {
  it('reads every page into the exact multiset, duplicates kept', async () => {
    const id = fragranceWith(120);
    const result = await fragranceReviews(context(settings()), { id, knownTotal: null, knownCount: null });
    const item = result.items[0] as ReviewsItem;
    expect(item.mode).toBe('replace');
    expect(sorted(reviewsOf(item))).toEqual(sorted(sim.groundTruth().reviews[id] ?? []));
    expect(item.total).toBe(reviewsOf(item).length);
  });

  it('stays exact when reviews arrive between page requests (shifted pages)', async () => {
    const id = fragranceWith(160);
    const result = await fragranceReviews(
      context(settings(), (page) => {
        // New reviews land at the top while we are on pages 2 and 3: items shift down.
        if (page === 2) sim.addReviews(id, 3);
        if (page === 3) sim.addReviews(id, 7);
      }),
      { id, knownTotal: null, knownCount: null },
    );
    const item = result.items[0] as ReviewsItem;
    const truth = sim.groundTruth().reviews[id] ?? [];
    expect(item.total).toBe(truth.length);
    expect(sorted(reviewsOf(item))).toEqual(sorted(truth));
  });

  it('reads only the new reviews at the top when the stored total is known', async () => {
    const id = fragranceWith(60);
    const before = sim.groundTruth().reviews[id]?.length ?? 0;
    sim.addReviews(id, 4);
    const callsBefore = calls;
    const result = await fragranceReviews(context(settings()), {
      id,
      knownTotal: before,
      knownCount: before,
    });
    const item = result.items[0] as ReviewsItem;
    expect(calls - callsBefore).toBe(1);
    expect(item.mode).toBe('prepend');
    expect(item.total).toBe(before + 4);
    expect(sorted(reviewsOf(item))).toEqual(sorted((sim.groundTruth().reviews[id] ?? []).slice(0, 4)));
  });

  it('keeps only the newest N in newest mode', async () => {
    const id = fragranceWith(80);
    const result = await fragranceReviews(context(settings('newest', 30)), {
      id,
      knownTotal: null,
      knownCount: null,
    });
    const item = result.items[0] as ReviewsItem;
    expect(reviewsOf(item)).toHaveLength(30);
    expect(sorted(reviewsOf(item))).toEqual(sorted((sim.groundTruth().reviews[id] ?? []).slice(0, 30)));
  });

  /**
   * Reads the fragrance's reviews with the balance emptied once pages before `stopAt` came
   * back: a 402 from page `stopAt` on (the pages after page 1 are asked for side by side).
   */
  async function stoppedRead(id: string, stopAt: number): Promise<PartialResultError> {
    const wrapped = Object.create(client) as FragranceClient;
    const earlier: Promise<unknown>[] = [];
    let drained: Promise<void> | null = null;
    wrapped.getReviews = async (fid, p, signal) => {
      if ((p?.page ?? 1) < stopAt) {
        const answer = client.getReviews(fid, p, signal);
        earlier.push(answer);
        return answer;
      }
      drained ??= Promise.allSettled(earlier).then(() => sim.topUp(-sim.clock().balanceCents));
      await drained;
      return client.getReviews(fid, p, signal);
    };
    const ctx = { ...context(settings()), client: wrapped };
    try {
      await fragranceReviews(ctx, { id, knownTotal: null, knownCount: null });
    } catch (err) {
      expect(err).toBeInstanceOf(PartialResultError);
      return err as PartialResultError;
    } finally {
      sim.topUp(1e9);
    }
    throw new Error('the read was not stopped');
  }

  it('stopped by a 402 after two pages: keeps them, and goes on from page 3 without moving', async () => {
    const id = fragranceWith(160);
    const truth = sim.groundTruth().reviews[id] ?? [];
    const stop = await stoppedRead(id, 3);
    expect((stop.cause as { code?: string }).code).toBe('PAYMENT_REQUIRED');
    const item = stop.partial.items[0] as ReviewsItem;
    expect(item).toMatchObject({ mode: 'replace', total: truth.length });
    expect(sorted(reviewsOf(item))).toEqual(sorted(truth.slice(0, 100)));
    expect(stop.partial.progress).toEqual([
      { kind: 'walk', walk: `reviews:${id}`, page: 2, total: truth.length, done: false, pageSize: 50 },
    ]);
    // The job that goes on, in this run or (from the warehouse) the next: page 3 onwards only.
    const next = stop.next.payload as JobPayloads['fragranceReviews'];
    expect(next.resume).toMatchObject({ page: 2, size: 50, total: truth.length });
    const pages: number[] = [];
    const result = await fragranceReviews(
      context(settings(), (page) => pages.push(page)),
      next,
    );
    expect(pages).toEqual(Array.from({ length: Math.ceil(truth.length / 50) - 2 }, (_, i) => i + 3));
    const done = result.items[0] as ReviewsItem;
    expect(done).toMatchObject({ mode: 'replace', total: truth.length });
    expect(sorted(reviewsOf(done))).toEqual(sorted(truth));
  });

  it('resumed after the list moved (reviews added since the stop): reads it all again, exact', async () => {
    const id = fragranceWith(110);
    const stop = await stoppedRead(id, 2);
    sim.addReviews(id, 3);
    const pages: number[] = [];
    const result = await fragranceReviews(
      context(settings(), (page) => pages.push(page)),
      stop.next.payload as JobPayloads['fragranceReviews'],
    );
    expect(pages[0]).toBe(2);
    expect(pages.slice(1, 3)).toEqual([1, 2]);
    const item = result.items[0] as ReviewsItem;
    expect(sorted(reviewsOf(item))).toEqual(sorted(sim.groundTruth().reviews[id] ?? []));
  });
});
