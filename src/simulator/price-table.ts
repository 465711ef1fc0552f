/**
 * The simulator's price table: the spec's endpoint table (fragrance-api.md, "Endpoints",
 * columns Method, Path and Cost) transcribed row for row, in its order. It is kept apart
 * from the client's table (src/domain/endpoints.ts) on purpose: the simulator is an
 * independent reading of the spec, so a slip in one table shows up (as a ledger that
 * disagrees with the service's, or in the test that reads both against the spec) instead
 * of being copied into both.
 */
export const PRICE_TABLE = {
  search: { method: 'GET', path: '/v1/search', costCents: 1 },
  trending: { method: 'GET', path: '/v1/trending', costCents: 1 },
  listCharts: { method: 'GET', path: '/v1/charts', costCents: 1 },
  getChart: { method: 'GET', path: '/v1/charts/{slug}', costCents: 1 },
  listFragrances: { method: 'GET', path: '/v1/fragrances', costCents: 1 },
  getFragrance: { method: 'GET', path: '/v1/fragrances/{id}', costCents: 1 },
  getReviews: { method: 'GET', path: '/v1/fragrances/{id}/reviews', costCents: 1 },
  getSimilar: { method: 'GET', path: '/v1/fragrances/{id}/similar', costCents: 2 },
  getWearingStats: { method: 'GET', path: '/v1/fragrances/{id}/wearing-stats', costCents: 2 },
  compare: { method: 'GET', path: '/v1/fragrances/compare', costCents: 3 },
  getReviewDigest: { method: 'GET', path: '/v1/fragrances/{id}/review-digest', costCents: 5 },
  /** "25 flat": whatever the number of ids (1 to 50). */
  batch: { method: 'POST', path: '/v1/fragrances/batch', costCents: 25 },
  enrich: { method: 'POST', path: '/v1/fragrances/enrich', costCents: 10 },
  getBrand: { method: 'GET', path: '/v1/brands/{slug}', costCents: 1 },
  getBrandFragrances: { method: 'GET', path: '/v1/brands/{slug}/fragrances', costCents: 1 },
  getPerfumer: { method: 'GET', path: '/v1/perfumers/{slug}', costCents: 1 },
  listNotes: { method: 'GET', path: '/v1/notes', costCents: 1 },
  getNote: { method: 'GET', path: '/v1/notes/{slug}', costCents: 1 },
  listAccords: { method: 'GET', path: '/v1/accords', costCents: 1 },
} as const satisfies Record<string, { method: 'GET' | 'POST'; path: string; costCents: number }>;

/** The simulator's name for an endpoint (a row of PRICE_TABLE). */
export type SimEndpoint = keyof typeof PRICE_TABLE;
