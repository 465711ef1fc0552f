import { z } from 'zod';
import { isCalendarDay } from '../util/calendar-day.ts';

/**
 * Response shapes written from the spec (docs/fragrance-api.md), field by field. A constraint
 * is here only where the spec states it for that very field:
 * - every field a resource's table lists is required (the table is the resource's shape), and
 *   has its stated type; unknown extra fields are stripped (z.object), so a provider adding
 *   fields never breaks a sync;
 * - stated formats hold: a review date is YYYY-MM-DD (the DATE column holds nothing else);
 * - stated ranges (a profile score out of 5.0, accord strengths, similarity, seasons, mood
 *   and occasion scores 0.0 to 1.0, ratings 0.5 to 5.0) are not refused: a value outside is
 *   stored as sent and flagged in the value_flags view (docs/data-dictionary.md);
 * - nothing else: no string must be non-empty, no score has a range the spec does not give it
 *   (chart entries, top lists), pagination numbers are plain integers, a search result of a
 *   type other than fragrance is kept as it came.
 * test/api/spec-conformance.test.ts reads the spec's tables and holds the schemas to this.
 */

const str = z.string();
// zod 4's z.number() refuses NaN and ±Infinity (JSON.parse turns 1e400 into Infinity).
const float = z.number();
const int = z.number().int();

export const Pagination = z.object({ page: int, limit: int, total: int });

export const FragranceSummary = z.object({ id: str, name: str, brand: str });

export const Accord = z.object({ slug: str, name: str });

export const FragranceAccord = z.object({ name: str, strength: float });

export const NotePyramid = z.object({ top: z.array(str), middle: z.array(str), base: z.array(str) });

/** The profile: the summary's fields and the rest of its table. */
export const FragranceProfile = FragranceSummary.extend({
  brandSlug: str,
  perfumer: str,
  perfumerSlug: str,
  year: int,
  score: float,
  notes: NotePyramid,
  accords: z.array(FragranceAccord),
});

export const Review = z.object({
  rating: float,
  text: str.nullable(),
  date: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, 'expected a YYYY-MM-DD date')
    .refine(isCalendarDay, 'expected a real calendar day'),
});

export const SimilarEntry = z.object({ id: str, name: str, brand: str, similarityScore: float });

const RankedLabel = z.object({ label: str, score: float });

export const WearingStats = z.object({
  fragranceId: str,
  seasons: z.object({ spring: float, summer: float, fall: float, winter: float }),
  moods: z.array(RankedLabel),
  occasions: z.array(RankedLabel),
});

const ScoredFragrance = z.object({ id: str, name: str, score: float });
const ScoredFragranceWithBrand = ScoredFragrance.extend({ brand: str });

export const Brand = z.object({
  slug: str,
  name: str,
  country: str,
  description: str,
  topFragrances: z.array(ScoredFragrance),
});

export const Perfumer = z.object({
  slug: str,
  name: str,
  nationality: str,
  bio: str,
  topCreations: z.array(ScoredFragranceWithBrand),
});

export const NoteListItem = z.object({ slug: str, name: str, family: str });

export const Note = NoteListItem.extend({
  description: str,
  topFragrances: z.array(ScoredFragranceWithBrand),
});

export const ChartListItem = z.object({ slug: str, title: str });

export const ChartEntry = z.object({ rank: int, id: str, name: str, brand: str, score: float });

export const Chart = ChartListItem.extend({ entries: z.array(ChartEntry) });

/**
 * Fragrance results are specified (type, id, name, brand); the fields of results of the other
 * types are "not shown", so such a result is kept as it came, with or without a `type`.
 */
export const SearchFragranceResult = z.object({
  type: z.literal('fragrance'),
  id: str,
  name: str,
  brand: str,
});
export const SearchOtherResult = z
  .looseObject({})
  .refine((r) => r.type !== 'fragrance', 'a fragrance result carries id, name and brand');
export const SearchResult = z.union([SearchFragranceResult, SearchOtherResult]);
export const SearchResponse = z.object({ results: z.array(SearchResult) });

export const TrendingResponse = z.object({
  queries: z.array(str),
  fragrances: z.array(FragranceSummary),
  notes: z.array(z.object({ slug: str, name: str })),
});

export const ChartListResponse = z.object({ charts: z.array(ChartListItem) });

export const FragranceListResponse = z.object({ data: z.array(FragranceSummary), pagination: Pagination });

export const ReviewsResponse = z.object({
  fragranceId: str,
  reviews: z.array(Review),
  pagination: Pagination,
});

export const SimilarResponse = z.object({ id: str, similar: z.array(SimilarEntry) });

export const BatchResponse = z.object({ fragrances: z.array(FragranceSummary) });

export const EnrichResponse = z.object({
  id: str,
  name: str,
  brand: str,
  notes: NotePyramid,
  accords: z.array(FragranceAccord),
  reviews: z.array(Review),
  similar: z.array(SimilarEntry),
});

export const BrandFragrancesResponse = z.object({
  brand: str,
  data: z.array(z.object({ id: str, name: str })),
  pagination: Pagination,
});

export const NoteListResponse = z.object({ data: z.array(NoteListItem), pagination: Pagination });

export const AccordListResponse = z.object({ data: z.array(Accord), pagination: Pagination });

/** compare and review-digest: fields not specified; any JSON object, kept whole. */
export const OpaqueObject = z.record(z.string(), z.unknown());

export type Pagination = z.infer<typeof Pagination>;
export type FragranceSummary = z.infer<typeof FragranceSummary>;
export type Accord = z.infer<typeof Accord>;
export type FragranceAccord = z.infer<typeof FragranceAccord>;
export type NotePyramid = z.infer<typeof NotePyramid>;
export type FragranceProfile = z.infer<typeof FragranceProfile>;
export type Review = z.infer<typeof Review>;
export type SimilarEntry = z.infer<typeof SimilarEntry>;
export type WearingStats = z.infer<typeof WearingStats>;
export type Brand = z.infer<typeof Brand>;
export type Perfumer = z.infer<typeof Perfumer>;
export type NoteListItem = z.infer<typeof NoteListItem>;
export type Note = z.infer<typeof Note>;
export type ChartListItem = z.infer<typeof ChartListItem>;
export type ChartEntry = z.infer<typeof ChartEntry>;
export type Chart = z.infer<typeof Chart>;
export type SearchResult = z.infer<typeof SearchResult>;
export type SearchResponse = z.infer<typeof SearchResponse>;
export type TrendingResponse = z.infer<typeof TrendingResponse>;
export type ChartListResponse = z.infer<typeof ChartListResponse>;
export type FragranceListResponse = z.infer<typeof FragranceListResponse>;
export type ReviewsResponse = z.infer<typeof ReviewsResponse>;
export type SimilarResponse = z.infer<typeof SimilarResponse>;
export type BatchResponse = z.infer<typeof BatchResponse>;
export type EnrichResponse = z.infer<typeof EnrichResponse>;
export type BrandFragrancesResponse = z.infer<typeof BrandFragrancesResponse>;
export type NoteListResponse = z.infer<typeof NoteListResponse>;
export type AccordListResponse = z.infer<typeof AccordListResponse>;
export type OpaqueObject = z.infer<typeof OpaqueObject>;
