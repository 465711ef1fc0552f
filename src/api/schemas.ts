import { z } from 'zod';
import { isCalendarDay } from '../util/calendar-day.ts';

/**
 * Response shapes written from the spec. Every field the spec lists is required; unknown
 * extra fields are stripped (z.object), so a provider adding fields never breaks a sync.
 * Ranges the spec states are enforced: a value outside them is a record to quarantine,
 * not to load.
 */

const id = z.string().min(1);
const slug = z.string().min(1);
const unit = z.number().min(0).max(1);
const score5 = z.number().min(0).max(5);

export const Pagination = z.object({
  page: z.number().int().min(1),
  limit: z.number().int().min(1),
  total: z.number().int().min(0),
});

export const FragranceSummary = z.object({ id, name: z.string(), brand: z.string() });

export const Accord = z.object({ slug, name: z.string() });

export const FragranceAccord = z.object({ name: z.string(), strength: unit });

export const NotePyramid = z.object({
  top: z.array(z.string()),
  middle: z.array(z.string()),
  base: z.array(z.string()),
});

export const FragranceProfile = z.object({
  id,
  name: z.string(),
  brand: z.string(),
  brandSlug: slug,
  perfumer: z.string(),
  perfumerSlug: slug,
  year: z.number().int(),
  score: score5,
  notes: NotePyramid,
  accords: z.array(FragranceAccord),
});

export const Review = z.object({
  rating: z.number().min(0.5).max(5),
  text: z.string().nullable(),
  date: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, 'expected a YYYY-MM-DD date')
    .refine(isCalendarDay, 'expected a real calendar day'),
});

export const SimilarEntry = z.object({ id, name: z.string(), brand: z.string(), similarityScore: unit });

const RankedLabel = z.object({ label: z.string(), score: unit });

export const WearingStats = z.object({
  fragranceId: id,
  seasons: z.object({ spring: unit, summer: unit, fall: unit, winter: unit }),
  moods: z.array(RankedLabel),
  occasions: z.array(RankedLabel),
});

const ScoredFragrance = z.object({ id, name: z.string(), score: score5 });
const ScoredFragranceWithBrand = ScoredFragrance.extend({ brand: z.string() });

export const Brand = z.object({
  slug,
  name: z.string(),
  country: z.string(),
  description: z.string(),
  topFragrances: z.array(ScoredFragrance),
});

export const Perfumer = z.object({
  slug,
  name: z.string(),
  nationality: z.string(),
  bio: z.string(),
  topCreations: z.array(ScoredFragranceWithBrand),
});

export const NoteListItem = z.object({ slug, name: z.string(), family: z.string() });

export const Note = NoteListItem.extend({
  description: z.string(),
  topFragrances: z.array(ScoredFragranceWithBrand),
});

export const ChartListItem = z.object({ slug, title: z.string() });

export const ChartEntry = z.object({
  rank: z.number().int(),
  id,
  name: z.string(),
  brand: z.string(),
  score: score5,
});

export const Chart = ChartListItem.extend({ entries: z.array(ChartEntry) });

/** Fragrance results are specified; other result types are kept as they came. */
export const SearchFragranceResult = z.object({
  type: z.literal('fragrance'),
  id,
  name: z.string(),
  brand: z.string(),
});
export const SearchOtherResult = z.looseObject({
  type: z.string().refine((t) => t !== 'fragrance', 'fragrance results need id, name and brand'),
});
export const SearchResult = z.union([SearchFragranceResult, SearchOtherResult]);
export const SearchResponse = z.object({ results: z.array(SearchResult) });

export const TrendingResponse = z.object({
  queries: z.array(z.string()),
  fragrances: z.array(FragranceSummary),
  notes: z.array(z.object({ slug, name: z.string() })),
});

export const ChartListResponse = z.object({ charts: z.array(ChartListItem) });

export const FragranceListResponse = z.object({ data: z.array(FragranceSummary), pagination: Pagination });

export const ReviewsResponse = z.object({
  fragranceId: id,
  reviews: z.array(Review),
  pagination: Pagination,
});

export const SimilarResponse = z.object({ id, similar: z.array(SimilarEntry) });

export const BatchResponse = z.object({ fragrances: z.array(FragranceSummary) });

export const EnrichResponse = z.object({
  id,
  name: z.string(),
  brand: z.string(),
  notes: NotePyramid,
  accords: z.array(FragranceAccord),
  reviews: z.array(Review),
  similar: z.array(SimilarEntry),
});

export const BrandFragrancesResponse = z.object({
  brand: slug,
  data: z.array(z.object({ id, name: z.string() })),
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
