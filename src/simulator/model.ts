/**
 * The simulator's internal records. Cross references are array indexes (not objects) so a
 * 120k catalogue stays compact and churn can mark records removed without rewiring.
 */
import type { Review, SimulatorVariant } from './types.ts';

export type PriceRange = 'BUDGET' | 'MIDRANGE' | 'PREMIUM';

export interface FragranceRec {
  idx: number;
  id: string;
  /** Two-segment slug; equals id in 'slug' style, a second lookup key in 'opaque' style. */
  slug: string;
  name: string;
  brand: number;
  perfumer: number;
  year: number;
  score: number;
  top: number[];
  middle: number[];
  base: number[];
  /** Accord indexes, strongest first, with their strengths. */
  accords: number[];
  strengths: number[];
  /** Euclidean norm of the accord vector, for cosine similarity. */
  norm: number;
  priceRange: PriceRange;
  /** Seed of this fragrance's generated data (reviews, wearing stats). */
  seed: number;
  /** Number of generated (older) reviews. */
  baseReviews: number;
  /** Epoch day of the newest generated review. */
  reviewAnchorDay: number;
  /** How long the similar list is at limit 50 (when enough candidates exist). */
  similarTarget: number;
  /** Relative popularity (views, wishlists): orders the trending chart; drifts day by day. */
  popularity: number;
  /** Reviews added after generation, newest first; they sit above the generated ones. */
  added: Review[];
  removed: boolean;
}

export interface BrandRec {
  idx: number;
  slug: string;
  name: string;
  country: string;
  description: string;
  fragrances: number[];
}

export interface PerfumerRec {
  idx: number;
  slug: string;
  name: string;
  nationality: string;
  bio: string;
  fragrances: number[];
}

export interface NoteRec {
  idx: number;
  slug: string;
  name: string;
  family: string;
  description: string;
  fragrances: number[];
}

export interface AccordRec {
  idx: number;
  slug: string;
  name: string;
}

export interface ChartRec {
  slug: string;
  title: string;
  /** Fragrance indexes in rank order. */
  members: number[];
}

export interface CatalogueData {
  seed: number;
  variant: SimulatorVariant;
  fragrances: FragranceRec[];
  brands: BrandRec[];
  perfumers: PerfumerRec[];
  notes: NoteRec[];
  accords: AccordRec[];
  /** Accord indexes per accord family: fragrances draw most accords from one family. */
  accordGroups: number[][];
  charts: ChartRec[];
  /** Fragrance indexes per accord: candidates for similarity on big catalogues. */
  accordBuckets: number[][];
  /** Every id and slug that was ever issued, so churn never reuses one. */
  issued: Set<string>;
}

export const DEFAULT_VARIANT: SimulatorVariant = {
  idStyle: 'slug',
  errorBody: 'json',
  extraFields: false,
  bad400Code: 'BAD_REQUEST',
  billFailedCalls: true,
  listOrder: 'id',
  pageCap: null,
  edgeValues: false,
};
