import type { Logger } from 'pino';
import type { z } from 'zod';
import type { ErrorContext } from '../errors.ts';
import type { ApiCallItem, CallTicket, SentCall } from '../domain/calls.ts';
import type { EndpointName } from '../domain/endpoints.ts';
import { Transport } from './http.ts';
import * as P from './params.ts';
import type { Occupancy } from './occupancy.ts';
import { RequestSlots } from './slots.ts';
import { buildPath } from './paths.ts';
import { performCall, type ApiResponse, type CallAdmission, type CallerDeps } from './request.ts';
import * as S from './schemas.ts';

export type { ApiResponse } from './request.ts';

export interface ClientOptions {
  baseUrl: string;
  apiKey: string;
  /** When set, every attempt is admitted first and settled (or released) after: the governor. */
  admission?: CallAdmission;
  /** Called once per HTTP attempt that reached the wire, retries and failures included. */
  onCall?: (call: ApiCallItem) => void;
  /** Called when an attempt's headers are written, before its answer (see CallerDeps.onSent). */
  onSent?: (call: SentCall) => void;
  /** undici Pool size; default 16. */
  connections?: number;
  /**
   * Requests in flight at once for this client and all its views (http.concurrency), however
   * many jobs use it; default: as many as connections.
   */
  concurrency?: number;
  connectTimeoutMs?: number;
  headersTimeoutMs?: number;
  bodyTimeoutMs?: number;
  /** Extra attempts for 5xx, network errors, timeouts and truncated bodies; default 4. */
  maxRetries?: number;
  retryBaseMs?: number;
  retryMaxMs?: number;
  logger?: Logger;
}

/**
 * The Fragrance Data Service, one typed method per endpoint. Parameters are checked before
 * anything is sent (RequestInvalidError); responses are validated (ResponseInvalidError);
 * non-200 answers become ApiError and its subclasses (./errors.ts).
 */
export class FragranceClient {
  private readonly deps: CallerDeps;

  constructor(opts: ClientOptions | { view: CallerDeps }) {
    if ('view' in opts) {
      this.deps = opts.view;
      return;
    }
    if (!opts.apiKey) throw new TypeError('FragranceClient: apiKey is required');
    const transport = new Transport({
      baseUrl: opts.baseUrl,
      connections: opts.connections ?? 16,
      connectTimeoutMs: opts.connectTimeoutMs ?? 5_000,
      headersTimeoutMs: opts.headersTimeoutMs ?? 15_000,
      bodyTimeoutMs: opts.bodyTimeoutMs ?? 15_000,
    });
    this.deps = {
      transport,
      slots: new RequestSlots(opts.concurrency ?? opts.connections ?? 16),
      lane: new RequestSlots(opts.concurrency ?? opts.connections ?? 16),
      refusals: { n: 0 },
      apiKey: opts.apiKey,
      admission: opts.admission,
      onCall: opts.onCall,
      onSent: opts.onSent,
      logger: opts.logger?.child({ component: 'api' }),
      maxRetries: opts.maxRetries ?? 4,
      retryBaseMs: opts.retryBaseMs ?? 200,
      retryMaxMs: opts.retryMaxMs ?? 5_000,
    };
  }

  /**
   * The same client (its connections, admission, retries) whose calls go to `onCall` instead:
   * one per job attempt, so each request's ledger row travels with the attempt that sent it,
   * even a failed one. (AsyncLocalStorage did this before; it put async hooks on every
   * promise of the process, a few percent of the fetching thread.) With `onSent`, the
   * attempt's requests are also announced as they leave (a worker's spool, queue/spool.ts).
   * Once `halt` is aborted, the view sends nothing more; requests on the wire finish.
   * `onRunStop` hears of an answer 402 or 401 the moment it is read (CallerDeps.onRunStop).
   */
  withCalls(
    onCall: (call: ApiCallItem) => void,
    onSent?: (call: SentCall) => void,
    halt?: AbortSignal,
    onRunStop?: CallerDeps['onRunStop'],
  ): FragranceClient {
    return new FragranceClient({
      view: {
        ...this.deps,
        onCall,
        ...(onSent ? { onSent } : {}),
        ...(halt ? { halt } : {}),
        ...(onRunStop ? { onRunStop } : {}),
      },
    });
  }

  /**
   * The same client for one call the governor already admitted (a quota recheck during a
   * pause, Governor.recheck): it asks no other admission and never retries, so a check costs
   * at most that one request.
   */
  withTicket(ticket: CallTicket): FragranceClient {
    const gate = this.deps.admission;
    let used = false;
    const admission: CallAdmission = {
      admit: async () => {
        if (used) return { ok: false, reason: 'paused', until: null, message: 'one call per recheck' };
        used = true;
        return { ok: true, ticket };
      },
      settle: async (t, outcome) => gate?.settle(t, outcome),
      release: async (t) => gate?.release(t),
    };
    return new FragranceClient({ view: { ...this.deps, admission, maxRetries: 0 } });
  }

  private call<T>(
    endpoint: EndpointName,
    schema: z.ZodType<T>,
    signal: AbortSignal | undefined,
    req: {
      path?: { id?: string; slug?: string };
      query?: Record<string, string>;
      body?: unknown;
      context?: ErrorContext;
      /** buildPath(endpoint, path), when the caller already built it. */
      built?: string;
    },
  ): Promise<ApiResponse<T>> {
    const path = req.built ?? buildPath(endpoint, req.path);
    // Merged only when there are both (reviews and brand pages): one object per call saved.
    const context = req.context
      ? req.path
        ? { ...req.path, ...req.context }
        : req.context
      : (req.path ?? {});
    return performCall(
      this.deps,
      { endpoint, path, query: req.query, body: req.body, schema, context },
      signal,
    );
  }

  async search(p: P.SearchParams, signal?: AbortSignal): Promise<ApiResponse<S.SearchResponse>> {
    const query = P.searchQuery(p);
    return this.call('search', S.SearchResponse, signal, { query, context: { q: p.q.slice(0, 50) } });
  }

  async trending(signal?: AbortSignal): Promise<ApiResponse<S.TrendingResponse>> {
    return this.call('trending', S.TrendingResponse, signal, {});
  }

  async listCharts(signal?: AbortSignal): Promise<ApiResponse<S.ChartListResponse>> {
    return this.call('listCharts', S.ChartListResponse, signal, {});
  }

  async getChart(slug: string, signal?: AbortSignal): Promise<ApiResponse<S.Chart>> {
    return this.call('getChart', S.Chart, signal, { path: { slug } });
  }

  async listFragrances(
    p: P.ListFragrancesParams = {},
    signal?: AbortSignal,
  ): Promise<ApiResponse<S.FragranceListResponse>> {
    const query = P.listFragrancesQuery(p);
    return this.call('listFragrances', S.FragranceListResponse, signal, {
      query,
      context: { page: query.page },
    });
  }

  async getFragrance(id: string, signal?: AbortSignal): Promise<ApiResponse<S.FragranceProfile>> {
    return this.call('getFragrance', S.FragranceProfile, signal, { path: { id } });
  }

  async getReviews(
    id: string,
    p: P.PageParams = {},
    signal?: AbortSignal,
  ): Promise<ApiResponse<S.ReviewsResponse>> {
    const path = { id };
    const built = buildPath('getReviews', path); // an invalid id is named before an invalid page
    const query = P.pageQuery('getReviews', p);
    return this.call('getReviews', S.ReviewsResponse, signal, {
      path,
      built,
      query,
      context: { page: query.page },
    });
  }

  async getSimilar(
    id: string,
    p: { limit?: number } = {},
    signal?: AbortSignal,
  ): Promise<ApiResponse<S.SimilarResponse>> {
    const query = P.similarQuery(p);
    return this.call('getSimilar', S.SimilarResponse, signal, { path: { id }, query });
  }

  async getWearingStats(id: string, signal?: AbortSignal): Promise<ApiResponse<S.WearingStats>> {
    return this.call('getWearingStats', S.WearingStats, signal, { path: { id } });
  }

  async compare(a: string, b: string, signal?: AbortSignal): Promise<ApiResponse<S.OpaqueObject>> {
    const query = P.compareQuery(a, b);
    return this.call('compare', S.OpaqueObject, signal, { query, context: { a, b } });
  }

  async getReviewDigest(id: string, signal?: AbortSignal): Promise<ApiResponse<S.OpaqueObject>> {
    return this.call('getReviewDigest', S.OpaqueObject, signal, { path: { id } });
  }

  async batch(ids: string[], signal?: AbortSignal): Promise<ApiResponse<S.BatchResponse>> {
    const body = P.batchBody(ids);
    return this.call('batch', S.BatchResponse, signal, { body, context: { ids: body.ids.length } });
  }

  async enrich(p: P.EnrichParams, signal?: AbortSignal): Promise<ApiResponse<S.EnrichResponse>> {
    const body = P.enrichBody(p);
    return this.call('enrich', S.EnrichResponse, signal, { body, context: { id: body.id } });
  }

  async getBrand(slug: string, signal?: AbortSignal): Promise<ApiResponse<S.Brand>> {
    return this.call('getBrand', S.Brand, signal, { path: { slug } });
  }

  async getBrandFragrances(
    slug: string,
    p: P.PageParams = {},
    signal?: AbortSignal,
  ): Promise<ApiResponse<S.BrandFragrancesResponse>> {
    const query = P.pageQuery('getBrandFragrances', p);
    return this.call('getBrandFragrances', S.BrandFragrancesResponse, signal, {
      path: { slug },
      query,
      context: { page: query.page },
    });
  }

  async getPerfumer(slug: string, signal?: AbortSignal): Promise<ApiResponse<S.Perfumer>> {
    return this.call('getPerfumer', S.Perfumer, signal, { path: { slug } });
  }

  async listNotes(p: P.PageParams = {}, signal?: AbortSignal): Promise<ApiResponse<S.NoteListResponse>> {
    const query = P.pageQuery('listNotes', p);
    return this.call('listNotes', S.NoteListResponse, signal, { query, context: { page: query.page } });
  }

  async getNote(slug: string, signal?: AbortSignal): Promise<ApiResponse<S.Note>> {
    return this.call('getNote', S.Note, signal, { path: { slug } });
  }

  async listAccords(p: P.PageParams = {}, signal?: AbortSignal): Promise<ApiResponse<S.AccordListResponse>> {
    const query = P.pageQuery('listAccords', p);
    return this.call('listAccords', S.AccordListResponse, signal, { query, context: { page: query.page } });
  }

  /** How well the request slots were used (shared by every view); null without slots. */
  get occupancy(): Occupancy | null {
    return this.deps.slots?.meter ?? null;
  }

  /** Closes the connections (of every view of this client). */
  async close(): Promise<void> {
    return this.deps.transport.close();
  }
}
