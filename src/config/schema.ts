import { z } from 'zod';

/**
 * The configuration of every fragsync command. Objects are strict: a typo in a config file
 * must fail loudly rather than silently fall back to a default. Error messages are phrased
 * to follow the key path ("quota.reservePercent must be ...") in one line.
 */

const NON_NEG_INT = 'must be a non-negative integer';
const POS_INT = 'must be a positive integer';

const nonNegInt = () =>
  z.number({ error: NON_NEG_INT }).int({ error: NON_NEG_INT }).min(0, { error: NON_NEG_INT });
const posInt = () => z.number({ error: POS_INT }).int({ error: POS_INT }).min(1, { error: POS_INT });
const NON_NEG = 'must be a non-negative number';
const nonNegNumber = () => z.number({ error: NON_NEG }).min(0, { error: NON_NEG });
const bool = () => z.boolean({ error: 'must be true or false' });

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export const ReviewsSchema = z.strictObject({
  /** all: every review; newest: only the `newest` most recent per fragrance; none: skip reviews. */
  mode: z.enum(['all', 'newest', 'none'], { error: 'must be all, newest or none' }),
  /** Reviews kept per fragrance when mode is 'newest' (count). */
  newest: posInt(),
});

export const ConfigSchema = z.strictObject({
  /** Address of the Fragrance Data Service (http/https URL). No default: the sync refuses to guess. */
  baseUrl: z.string().refine(isHttpUrl, { error: 'must be an http(s) URL' }).nullable(),
  /** Bearer token, from FRAGSYNC_API_KEY only. Redacted from JSON and inspect output. */
  // A control character (a line ending carried from an env file written on Windows) or a
  // space around the key made every request fail before it was sent and the sync retry
  // forever; said here, without the key, before anything starts.
  apiKey: z
    .string()
    .min(1, { error: 'must not be empty' })
    .refine((k) => !/\p{Cc}/u.test(k) && k.trim() === k, {
      error:
        'holds a control character or a space around it (a line ending from the file it was read from?): set FRAGSYNC_API_KEY to the key alone',
    })
    .nullable(),
  /** Path of the DuckDB warehouse file. */
  dbPath: z.string().min(1, { error: 'must be a non-empty path' }),
  /** Redis URL for distributed mode; null: run every job in-process. */
  redisUrl: z
    .string()
    .refine((v) => /^rediss?:\/\//.test(v), { error: 'must be a redis:// or rediss:// URL' })
    .nullable(),
  /** What the planner minimises when paths differ: money (cents) or daily quota units (calls). */
  objective: z.enum(['cents', 'calls'], { error: 'must be cents or calls' }),
  budget: z.strictObject({
    /** Cent cap of one run; null: no cap. */
    maxCentsPerRun: nonNegInt().nullable(),
    /** Cent cap per UTC day (service clock), across runs; null: no cap. */
    maxCentsPerDay: nonNegInt().nullable(),
  }),
  quota: z.strictObject({
    /** Quota calls left untouched for the account's other applications (calls). */
    reserveCalls: nonNegInt(),
    /** Same as a percentage of X-RateLimit-Limit (0..100); the larger of the two reserves applies. */
    reservePercent: z
      .number({ error: 'must be between 0 and 100' })
      .min(0, { error: 'must be between 0 and 100' })
      .max(100, { error: 'must be between 0 and 100' }),
    /** When the quota is down to the reserve: wait for the reset (true) or stop with an exit code (false). */
    wait: bool(),
    /** Upper bound of the random delay after a reset before resuming, in ms. */
    resumeJitterMs: nonNegInt(),
    /**
     * While paused for quota, how often the account's remaining quota is read again (one
     * 1-cent call, see docs/governor.md), in ms: a quota raised meanwhile ends the pause.
     */
    recheckMs: z
      .number({ error: 'must be an integer of at least 100' })
      .int({ error: 'must be an integer of at least 100' })
      .min(100, { error: 'must be an integer of at least 100' }),
  }),
  http: z.strictObject({
    /** Requests in flight per process, all jobs together (count). */
    concurrency: posInt(),
    /**
     * Keep-alive connections to the service per process (count); null: as many as
     * http.concurrency. Requests are not pipelined, so fewer connections than requests in
     * flight would leave the rest waiting for one (and the latency unhidden).
     */
    connections: posInt().nullable(),
    /** TCP/TLS connect timeout, in ms. */
    connectTimeoutMs: posInt(),
    /** Time to wait for response headers, in ms. */
    headersTimeoutMs: posInt(),
    /** Maximum idle time while reading a response body, in ms. */
    bodyTimeoutMs: posInt(),
    /** Retries of one request after 5xx or network errors (attempts beyond the first). */
    maxRetries: nonNegInt(),
    /** First retry delay before jitter, in ms; doubles per attempt. */
    retryBaseMs: posInt(),
    /** Ceiling of one retry delay, in ms. */
    retryMaxMs: posInt(),
  }),
  datasets: z.strictObject({
    /** Fragrance profiles (name, brand, perfumer, year, score, notes, accords): 1 cent each. */
    fragrances: bool(),
    /** Similar lists at limit 50: 2 cents each. */
    similar: bool(),
    /** Wearing stats: 2 cents each. */
    wearing: bool(),
    reviews: ReviewsSchema,
    /** AI review digests: 5 cents each, opt-in. */
    reviewDigest: bool(),
    /** Brand profiles and their exhaustive catalogues. */
    brands: bool(),
    /** Perfumer profiles (slugs come from fragrance profiles). */
    perfumers: bool(),
    /** Note list and note profiles (descriptions are only in the profile). */
    notes: bool(),
    /** Accord families. */
    accords: bool(),
    /** Chart list and each chart's leaderboard snapshot. */
    charts: bool(),
    /** Trending feed (1 cent per sync), opt-in. */
    trending: bool(),
  }),
  queue: z.strictObject({
    /** Key prefix of the BullMQ queues in Redis; no ':' (BullMQ uses it as separator). */
    prefix: z.string().regex(/^[^:\s]+$/, { error: "must be a non-empty string without ':' or spaces" }),
    /**
     * Jobs processed at once per process, the sync's own or a worker (count); null: four times
     * http.concurrency on BullMQ (a worker takes its jobs from Redis one at a time), twice in
     * process. Requests in flight are http.concurrency whatever this is: a job holds a request
     * slot only while its request is on the wire, so more jobs than slots keep every connection
     * busy while some jobs are between two requests. A killed process's jobs in flight are
     * what a kill may buy again (their calls).
     */
    concurrency: posInt().nullable(),
    /**
     * Folder where each fetch-worker process of this host keeps the calls it made until the
     * warehouse owner took their ledger rows (survives a kill or a Redis that lost its data);
     * null: $XDG_STATE_HOME/fragsync/spool, else ~/.local/state/fragsync/spool.
     */
    spoolDir: z.string().min(1, { error: 'must be a non-empty path' }).nullable(),
    /** A job's lock in Redis, in ms: a killed worker's jobs are taken over after about this long. */
    lockMs: z
      .number({ error: POS_INT })
      .int({ error: POS_INT })
      .min(1000, { error: 'must be at least 1000' }),
    /**
     * The run lease, in ms (src/queue/lease.ts): the sync renews it every third of this; once
     * a killed sync's lease lapsed, workers abort its jobs. A dead run costs about this long of
     * calls beyond those in flight; a sync whose thread stalls longer pauses its own workers.
     */
    leaseMs: z
      .number({ error: POS_INT })
      .int({ error: POS_INT })
      .min(1000, { error: 'must be at least 1000' }),
    /**
     * Jobs handed to the queue and not yet ended, at most (count); the rest of what a sync
     * owes waits in its own process, a few bytes per job (src/sync/admission.ts). Enough to
     * keep every worker busy: the sync's own and each worker process take jobConcurrency
     * jobs at once (128 by default on BullMQ, 64 in process), so 2,000 serves the sync and
     * 14 worker processes.
     */
    windowJobs: posInt(),
  }),
  loader: z.strictObject({
    /** Items per warehouse transaction (count). */
    batchItems: posInt(),
    /** Longest time a partial batch waits before it is written, in ms. */
    flushMs: posInt(),
    /**
     * Run the warehouse (DuckDB, staging, merges) in a worker thread, on the other core,
     * so loading never delays the requests in flight. false: in the sync's own thread.
     */
    thread: bool(),
    /**
     * Close the warehouse file once the sync has had nothing to write for this long, in ms,
     * so analysts can open it (DuckDB admits no reader while a writer has it open); it is
     * opened again for the next batch (median 0.25 s on a 5k warehouse; docs/architecture.md).
     * Quota pauses close it at once.
     */
    releaseIdleMs: nonNegInt(),
  }),
  /**
   * Fetch everything again, as the first sync does, instead of the nightly: what is due by
   * the freshness policy and what the cheap walks say changed. A warehouse with no completed
   * full sync gets a full sync (or the rest of one) whatever this says.
   */
  full: bool(),
  /**
   * How old each dataset may grow before the nightly fetches it again, in hours, when no
   * signal (a new or removed id, a brand whose membership moved, a removed similar entry)
   * says it changed. docs/cost-model.md gives the reason for each default. An age longer than
   * a day is spread over the nights (a rolling slice by a hash of the key), so no night pays
   * for a whole week's work at once.
   */
  freshness: z.strictObject({
    /** Fragrance profiles: score and year (hours). */
    profileMaxAgeHours: nonNegNumber(),
    /** Review page 1 (new reviews stop at the first known one) (hours). */
    reviewsMaxAgeHours: nonNegNumber(),
    /** Similar lists (hours). */
    similarMaxAgeHours: nonNegNumber(),
    /** Wearing stats (hours). */
    wearingMaxAgeHours: nonNegNumber(),
    /** AI review digests, when enabled (hours). */
    reviewDigestMaxAgeHours: nonNegNumber(),
    /** Chart leaderboards, read as a dated snapshot (hours). */
    chartMaxAgeHours: nonNegNumber(),
    /** Brand, perfumer and note profiles, and brand catalogues (hours). */
    entityMaxAgeHours: nonNegNumber(),
    /**
     * How much earlier than its age an item counts as due (hours): yesterday's nightly
     * fetched its items over the hours it ran, and tonight's must still find them all due.
     */
    graceHours: nonNegNumber(),
  }),
  export: z.strictObject({
    /** Folder for Parquet files after a sync; null: no export. */
    parquetDir: z.string().min(1, { error: 'must be a non-empty path' }).nullable(),
  }),
  /** pino log level. */
  logLevel: z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(', ')}` }),
});

export type Config = z.infer<typeof ConfigSchema>;
export type DatasetsConfig = Config['datasets'];
export type Objective = Config['objective'];
