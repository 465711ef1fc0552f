import { z } from 'zod';
import { isCalendarDay } from '../util/calendar-day.ts';
import { surelyValid } from './fast-check.ts';
import type { LoadItem, QuarantineItem } from '../domain/items.ts';

/**
 * Items cross a process boundary (a Redis queue) before they reach the loader, so they are
 * `unknown` until checked here. An item that fails is quarantined with its raw value; the
 * rest of the batch loads. Progress marks are the program's own bookkeeping, not upstream
 * data: the warehouse's NOT NULL constraints check those, and a bad mark fails the batch.
 */
const str = z.string();
// zod 4's z.number() already refuses NaN and ±Infinity; a refine here would also take every
// object schema off zod's compiled fast path (it cost ~60% of validation time).
const num = z.number();
const int = z.number().int();
/** A value bound for an INTEGER column (year, rank, review total): one beyond 32 bits cannot be stored. */
const int32 = int.min(-(2 ** 31)).max(2 ** 31 - 1);
const day = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'expected YYYY-MM-DD')
  .refine(isCalendarDay, 'expected a real calendar day');
const instant = z.string().refine((s) => !Number.isNaN(Date.parse(s)), 'expected an ISO timestamp');

/** A list's columns (SimilarItem, ReviewsItem) must line up: one value per entry in each. */
const aligned = (...cols: unknown[][]) => cols.every((c) => c.length === cols[0]!.length);
const misaligned = { message: 'columns differ in length' };

export const ITEM = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('fragrance'),
    id: str,
    name: str,
    brand: str,
    brandSlug: str,
    perfumer: str,
    perfumerSlug: str,
    year: int32,
    score: num,
    notes: z.object({ top: z.array(str), middle: z.array(str), base: z.array(str) }),
    accords: z.array(z.object({ name: str, strength: num })),
  }),
  z.object({ kind: z.literal('fragranceSummary'), id: str, name: str, brand: str }),
  z
    .object({ kind: z.literal('similar'), fragranceId: str, ids: z.array(str), scores: z.array(num) })
    .refine((v) => aligned(v.ids, v.scores), misaligned),
  z.object({
    kind: z.literal('wearing'),
    fragranceId: str,
    seasons: z.object({ spring: num, summer: num, fall: num, winter: num }),
    moods: z.array(z.object({ label: str, score: num })),
    occasions: z.array(z.object({ label: str, score: num })),
  }),
  z
    .object({
      kind: z.literal('reviews'),
      fragranceId: str,
      mode: z.enum(['replace', 'prepend']),
      total: int32.nonnegative(),
      dates: z.array(day),
      ratings: z.array(num),
      texts: z.array(str.nullable()),
    })
    .refine((v) => aligned(v.dates, v.ratings, v.texts), misaligned),
  z.object({ kind: z.literal('brand'), slug: str, name: str, country: str, description: str }),
  z.object({
    kind: z.literal('brandCatalogue'),
    brandSlug: str,
    fragrances: z.array(z.object({ id: str, name: str })),
    complete: z.boolean().optional(),
  }),
  z.object({ kind: z.literal('perfumer'), slug: str, name: str, nationality: str, bio: str }),
  z.object({ kind: z.literal('note'), slug: str, name: str, family: str, description: str.optional() }),
  z.object({ kind: z.literal('accord'), slug: str, name: str }),
  z.object({ kind: z.literal('chart'), slug: str, title: str }),
  z.object({
    kind: z.literal('chartSnapshot'),
    chartSlug: str,
    title: str,
    snapshotDate: day,
    entries: z.array(z.object({ rank: int32, id: str, name: str, brand: str, score: num })),
  }),
  z.object({ kind: z.literal('reviewDigest'), fragranceId: str, raw: z.unknown() }),
  z.object({
    kind: z.literal('removal'),
    entity: z.enum(['fragrance', 'brand', 'perfumer', 'note', 'accord', 'chart']),
    keys: z.array(str),
  }),
  z.object({
    kind: z.literal('quarantine'),
    endpoint: str,
    key: str,
    reason: str,
    raw: z.unknown(),
    scope: z.enum(['response', 'entry', 'item', 'job']).optional(),
  }),
  z.object({
    kind: z.literal('apiCall'),
    at: instant,
    method: z.enum(['GET', 'POST']),
    endpoint: str,
    status: int,
    costCents: int,
    quotaRemaining: int.nullable(),
  }),
]);

function keyOf(raw: unknown): string {
  if (typeof raw !== 'object' || raw === null) return '';
  const r = raw as Record<string, unknown>;
  for (const field of ['id', 'fragranceId', 'slug', 'brandSlug', 'chartSlug', 'key']) {
    if (typeof r[field] === 'string') return r[field];
  }
  return '';
}

/** The item itself when valid, else a quarantine item that carries it. */
export function checkItem(raw: unknown): LoadItem {
  // The hot kinds are checked by hand first; staging reads only the schema's fields, so the
  // item itself serves as well as zod's stripped copy.
  if (surelyValid(raw)) return raw as LoadItem;
  const parsed = ITEM.safeParse(raw);
  if (parsed.success) return parsed.data as LoadItem;
  const kind =
    typeof raw === 'object' && raw !== null ? String((raw as { kind?: unknown }).kind) : typeof raw;
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length > 0 ? ` at ${issue.path.join('.')}` : '';
  const quarantined: QuarantineItem = {
    kind: 'quarantine',
    endpoint: 'loader',
    key: keyOf(raw),
    reason: `invalid ${kind} item${where}: ${issue?.message ?? 'unknown'}`,
    raw,
    scope: 'item',
  };
  return quarantined;
}
