/**
 * The price list of the Fragrance Data Service, one entry per endpoint, taken from the spec.
 * It is the single source of truth for the client (path templates), the governor (cents to
 * reserve), the planner (cost model) and the call ledger (`api_calls.cost_cents`). It lives
 * in the domain because all of those read it; the simulator keeps its own transcription
 * (src/simulator/price-table.ts).
 */
export const ENDPOINTS = {
  search: { method: 'GET', template: '/v1/search', costCents: 1 },
  trending: { method: 'GET', template: '/v1/trending', costCents: 1 },
  listCharts: { method: 'GET', template: '/v1/charts', costCents: 1 },
  getChart: { method: 'GET', template: '/v1/charts/{slug}', costCents: 1 },
  listFragrances: { method: 'GET', template: '/v1/fragrances', costCents: 1 },
  getFragrance: { method: 'GET', template: '/v1/fragrances/{id}', costCents: 1 },
  getReviews: { method: 'GET', template: '/v1/fragrances/{id}/reviews', costCents: 1 },
  getSimilar: { method: 'GET', template: '/v1/fragrances/{id}/similar', costCents: 2 },
  getWearingStats: { method: 'GET', template: '/v1/fragrances/{id}/wearing-stats', costCents: 2 },
  compare: { method: 'GET', template: '/v1/fragrances/compare', costCents: 3 },
  getReviewDigest: { method: 'GET', template: '/v1/fragrances/{id}/review-digest', costCents: 5 },
  batch: { method: 'POST', template: '/v1/fragrances/batch', costCents: 25 },
  enrich: { method: 'POST', template: '/v1/fragrances/enrich', costCents: 10 },
  getBrand: { method: 'GET', template: '/v1/brands/{slug}', costCents: 1 },
  getBrandFragrances: { method: 'GET', template: '/v1/brands/{slug}/fragrances', costCents: 1 },
  getPerfumer: { method: 'GET', template: '/v1/perfumers/{slug}', costCents: 1 },
  listNotes: { method: 'GET', template: '/v1/notes', costCents: 1 },
  getNote: { method: 'GET', template: '/v1/notes/{slug}', costCents: 1 },
  listAccords: { method: 'GET', template: '/v1/accords', costCents: 1 },
} as const satisfies Record<string, EndpointSpec>;

export interface EndpointSpec {
  method: 'GET' | 'POST';
  /** Path template exactly as the spec writes it; recorded in `api_calls.endpoint`. */
  template: string;
  /** Price of one call in cents, whatever the outcome. */
  costCents: number;
}

export type EndpointName = keyof typeof ENDPOINTS;

export const ENDPOINT_NAMES = Object.keys(ENDPOINTS) as EndpointName[];

/** Every call, batch and enrich included, counts as one unit of the daily quota. */
export const QUOTA_UNITS_PER_CALL = 1;

/** Page-size ceilings from the spec's parameter bounds. */
export const MAX_PAGE_SIZE = {
  listFragrances: 50,
  getReviews: 50,
  getSimilar: 50,
  listNotes: 50,
  listAccords: 50,
  getBrandFragrances: 50,
  search: 25,
  batchIds: 50,
  enrichLimit: 20,
} as const;

export function endpointByTemplate(template: string): EndpointName | undefined {
  return ENDPOINT_NAMES.find((name) => ENDPOINTS[name].template === template);
}
