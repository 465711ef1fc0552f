import pino from 'pino';
import { runJob, type JobKind, type JobPayloads, type JobSettings } from '../../jobs/index.ts';
import { FragranceClient } from '../api/client.ts';
import { EMPTY_RATE_LIMIT } from '../api/rate-limit.ts';
import type { LoadItem, ProgressMark } from '../domain/items.ts';
import type { WarehouseHandle } from '../warehouse/handle.ts';
import {
  lastFetched,
  pendingQuarantine,
  releaseQuarantine,
  STORED_BY,
  type PendingRow,
} from '../warehouse/quarantine.ts';
import { checkItem } from '../warehouse/validate.ts';

/**
 * `fragsync quarantine --revalidate`: every pending quarantine row is checked again with
 * today's schemas, and what now passes is loaded, without a single call to the service.
 * - a response (scope 'response', or none on older rows) of an endpoint one job reads in one
 *   call: the job runs again on the stored body, played back instead of sent (the client's
 *   schema, then the job, then the loader, exactly as in a sync);
 * - an item the loader refused (scope 'item'): the loader's schema again;
 * - a job that failed (scope 'job') received nothing to check: it stays, counted apart, and
 *   the next sync fetches its work again (which releases it: sql/runs/release-jobs.sql);
 * - a page of a longer walk cannot be checked without asking again: it stays (the next sync
 *   asks for what it still owes).
 * A row whose dataset was fetched again after it was quarantined is superseded: loading it
 * would put back an older state, so it stays pending, and is counted apart.
 */

/** The job that reads each endpoint of STORED_BY, to play a stored answer back through. */
const JOB_OF: Record<string, JobKind> = {
  '/v1/fragrances/{id}': 'fragranceProfile',
  '/v1/fragrances/{id}/similar': 'fragranceSimilar',
  '/v1/fragrances/{id}/wearing-stats': 'fragranceWearing',
  '/v1/fragrances/{id}/review-digest': 'reviewDigest',
  '/v1/brands/{slug}': 'brand',
  '/v1/perfumers/{slug}': 'perfumer',
  '/v1/notes/{slug}': 'note',
  '/v1/charts/{slug}': 'chart',
};

export interface RevalidateResult {
  /** Rows that now pass and were loaded. */
  released: number;
  /**
   * Rows still pending, of which `superseded` were fetched again since, `failedJobs` are jobs
   * that failed (nothing received: to fetch again by the next sync), `unchecked` cannot be
   * checked offline.
   */
  remaining: number;
  superseded: number;
  failedJobs: number;
  unchecked: number;
}

type Verdict =
  { loads: { items: LoadItem[]; progress: ProgressMark[] } } | 'invalid' | 'unchecked' | 'superseded' | 'job';

export async function revalidate(wh: WarehouseHandle, settings: JobSettings): Promise<RevalidateResult> {
  const out: RevalidateResult = { released: 0, remaining: 0, superseded: 0, failedJobs: 0, unchecked: 0 };
  for (const row of await pendingQuarantine(wh)) {
    const verdict = await check(wh, row, settings);
    if (typeof verdict === 'object') {
      // Under the run that fetched it: the rows carry that run's lineage.
      await wh.load({ runId: row.runId ?? 'revalidate', ...verdict.loads });
      await releaseQuarantine(wh, [row.rowid], new Date());
      out.released++;
      continue;
    }
    out.remaining++;
    if (verdict === 'superseded') out.superseded++;
    if (verdict === 'unchecked') out.unchecked++;
    if (verdict === 'job') out.failedJobs++;
  }
  return out;
}

async function check(wh: WarehouseHandle, row: PendingRow, settings: JobSettings): Promise<Verdict> {
  if (row.scope === 'job') return 'job';
  if (row.scope === 'item') {
    const item = checkItem(row.raw);
    return item.kind === 'quarantine' ? 'invalid' : { loads: { items: [item], progress: [] } };
  }
  const replay = row.scope === null || row.scope === 'response' ? STORED_BY[row.endpoint] : undefined;
  const kind = JOB_OF[row.endpoint];
  if (!replay || !kind || row.key === '') return 'unchecked';
  const fetchedAt = await lastFetched(wh, replay.entity, row.key, replay.dataset);
  if (fetchedAt && fetchedAt.getTime() > row.at.getTime()) return 'superseded';
  const payload = { [replay.field]: row.key } as unknown as JobPayloads[JobKind];
  const result = await runJob(
    { client: playback(row.raw), settings, signal: new AbortController().signal, log: SILENT },
    kind,
    payload,
  );
  // The job quarantines what still fails, as in a sync: that is a no, not a load.
  if (result.items.some((i) => i.kind === 'quarantine')) return 'invalid';
  const items = result.items.map(checkItem);
  if (items.some((i) => i.kind === 'quarantine')) return 'invalid';
  // What the answer names is discovered, as the frontier would record it: the next sync owes it.
  const progress: ProgressMark[] = result.progress.flatMap((m): ProgressMark[] =>
    m.kind === 'named'
      ? m.keys.map((key) => ({ kind: 'discovered', entity: m.entity, key, source: m.source }))
      : [m],
  );
  return { loads: { items, progress } };
}

const SILENT = pino({ level: 'silent' });

/** A client whose every request is answered with `body` (a 200), and never leaves the process. */
function playback(body: unknown): FragranceClient {
  const text = JSON.stringify(body);
  return new FragranceClient({
    view: {
      transport: {
        send: () =>
          Promise.resolve({
            kind: 'response',
            status: 200,
            rateLimit: EMPTY_RATE_LIMIT,
            contentType: 'application/json',
            text,
          }),
        close: () => Promise.resolve(),
      },
      // Redaction looks for the key in bodies; nothing here was sent with one.
      apiKey: 'no key: a stored answer played back',
      maxRetries: 0,
      retryBaseMs: 0,
      retryMaxMs: 0,
    },
  });
}
