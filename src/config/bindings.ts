import { ConfigError } from '../errors.ts';

/**
 * Where environment variables and command-line flags land in the config tree. One table
 * serves the command-line parser and help (src/cli builds each command's options from the
 * rows it names), the loader and config/README.md, so they cannot drift.
 */

/** How the raw string of a flag or variable becomes a config value. */
type Kind = 'string' | 'number' | 'bool' | 'negatedBool' | 'reviews';

export interface Binding {
  flag?: string;
  /** Variables in increasing precedence (the last one set wins). */
  env?: string[];
  /** Config paths written by this binding (a flag may set more than one). */
  paths: string[][];
  kind: Kind;
  /** Meaning and unit, for --help. */
  help: string;
  valueName?: string;
}

export const BINDINGS: Binding[] = [
  {
    flag: 'base-url',
    env: ['FRAGSYNC_BASE_URL'],
    paths: [['baseUrl']],
    kind: 'string',
    valueName: 'URL',
    help: "address of the Fragrance Data Service (no default: sync needs it; a worker takes its run's)",
  },
  {
    flag: 'db',
    env: ['FRAGSYNC_DB'],
    paths: [['dbPath']],
    kind: 'string',
    valueName: 'FILE',
    help: 'DuckDB warehouse file (default data/fragsync.duckdb)',
  },
  {
    flag: 'redis',
    env: ['REDIS_URL', 'FRAGSYNC_REDIS_URL'],
    paths: [['redisUrl']],
    kind: 'string',
    valueName: 'URL',
    help: 'Redis shared by syncs and workers (redis://...); a sync without it runs every job in-process',
  },
  {
    flag: 'objective',
    env: ['FRAGSYNC_OBJECTIVE'],
    paths: [['objective']],
    kind: 'string',
    valueName: 'cents|calls',
    help: 'what to minimise when paths differ: money (cents) or daily quota calls (default cents)',
  },
  {
    flag: 'max-cents',
    env: ['FRAGSYNC_MAX_CENTS'],
    paths: [['budget', 'maxCentsPerRun']],
    kind: 'number',
    valueName: 'CENTS',
    help: 'stop the run before it spends more than this many cents (default: no cap)',
  },
  {
    flag: 'max-cents-per-day',
    env: ['FRAGSYNC_MAX_CENTS_PER_DAY'],
    paths: [['budget', 'maxCentsPerDay']],
    kind: 'number',
    valueName: 'CENTS',
    help: "cap on cents spent per UTC day of the service's clock (its Date header: the day it bills), across runs (default: no cap)",
  },
  {
    flag: 'reserve',
    env: ['FRAGSYNC_RESERVE'],
    paths: [['quota', 'reserveCalls']],
    kind: 'number',
    valueName: 'CALLS',
    help: "daily quota calls left for the account's other applications (default 0)",
  },
  {
    flag: 'reserve-percent',
    env: ['FRAGSYNC_RESERVE_PERCENT'],
    paths: [['quota', 'reservePercent']],
    kind: 'number',
    valueName: 'PERCENT',
    help: 'same as a percentage (0-100) of the daily limit; the larger reserve applies (default 0)',
  },
  {
    flag: 'concurrency',
    env: ['FRAGSYNC_CONCURRENCY'],
    paths: [['http', 'concurrency']],
    kind: 'number',
    valueName: 'N',
    help: 'requests in flight per process (default 32)',
  },
  {
    flag: 'no-wait',
    env: ['FRAGSYNC_NO_WAIT'],
    paths: [['quota', 'wait']],
    kind: 'negatedBool',
    help: 'when the quota is down to the reserve, stop (exit 5) instead of waiting for the reset',
  },
  {
    flag: 'queue-prefix',
    env: ['FRAGSYNC_QUEUE_PREFIX'],
    paths: [['queue', 'prefix']],
    kind: 'string',
    valueName: 'NAME',
    help: "Redis key prefix of the job queues, without ':' (default fragsync)",
  },
  {
    flag: 'spool-dir',
    env: ['FRAGSYNC_SPOOL_DIR'],
    paths: [['queue', 'spoolDir']],
    kind: 'string',
    valueName: 'DIR',
    help: 'where worker processes keep their calls until the ledger has them (default ~/.local/state/fragsync/spool)',
  },
  {
    flag: 'log-level',
    env: ['FRAGSYNC_LOG_LEVEL'],
    paths: [['logLevel']],
    kind: 'string',
    valueName: 'LEVEL',
    help: 'fatal, error, warn, info, debug, trace or silent (default info)',
  },
  {
    flag: 'reviews',
    env: ['FRAGSYNC_REVIEWS'],
    paths: [['datasets', 'reviews']],
    kind: 'reviews',
    valueName: 'all|none|newest:N',
    help: 'reviews per fragrance: all of them, none, or the N newest (default all)',
  },
  {
    flag: 'review-digest',
    env: ['FRAGSYNC_REVIEW_DIGEST'],
    paths: [['datasets', 'reviewDigest']],
    kind: 'bool',
    help: 'also fetch AI review digests (5 cents per fragrance; default off)',
  },
  {
    flag: 'full',
    env: ['FRAGSYNC_FULL'],
    paths: [['full']],
    kind: 'bool',
    help: 'fetch everything again, every review page too, as the first sync does (default: the nightly, what changed or is due)',
  },
  {
    flag: 'parquet',
    env: ['FRAGSYNC_PARQUET_DIR'],
    paths: [['export', 'parquetDir']],
    kind: 'string',
    valueName: 'DIR',
    help: 'Parquet folder: `export` writes it; `sync` writes it after a completed run (default: none)',
  },
];

/** The binding of a command-line flag (without its dashes). */
export function bindingOf(flag: string): Binding {
  const binding = BINDINGS.find((b) => b.flag === flag);
  if (!binding) throw new Error(`no config binding for --${flag}`);
  return binding;
}

/** `--config FILE`: taken by every command that reads config flags. */
export const CONFIG_FILE_FLAG = {
  flag: 'config',
  valueName: 'FILE',
  help: 'JSON config file (defaults < file < environment < flags)',
} as const;

/** Never a flag, never in a file (see config/README.md). */
export const SECRET_ENV = ['FRAGSYNC_API_KEY'] as const;

const DECIMAL = /^-?\d+(\.\d+)?$/;
const TRUE = new Set(['true', '1', 'yes', 'on']);
const FALSE = new Set(['false', '0', 'no', 'off']);

/**
 * Converts a raw flag or variable value. Values that do not convert are returned as they
 * are, so that the schema rejects them with the message of the key they were meant for.
 */
export function convert(binding: Binding, raw: string | boolean, where: string): unknown {
  switch (binding.kind) {
    case 'string':
      if (typeof raw === 'boolean') throw new ConfigError(`config: ${where} needs a value`);
      return raw;
    case 'number': {
      if (typeof raw === 'boolean') throw new ConfigError(`config: ${where} needs a value`);
      // Plain decimals only: Number() also reads '0x10' as 16 and '1e3' as 1000, which a
      // cent cap written by mistake should not silently become.
      const text = raw.trim();
      return DECIMAL.test(text) ? Number(text) : raw;
    }
    case 'bool':
    case 'negatedBool': {
      let value: unknown = raw;
      if (typeof raw === 'string') {
        const lower = raw.toLowerCase();
        value = TRUE.has(lower) ? true : FALSE.has(lower) ? false : raw;
        // Named as the user set it: FRAGSYNC_NO_WAIT=maybe is not about "quota.wait".
        if (value === raw)
          throw new ConfigError(
            `config: ${where.replace(/^env /, '')} must be true or false (or 1/0, yes/no, on/off), not '${raw}'`,
          );
      }
      return binding.kind === 'negatedBool' && typeof value === 'boolean' ? !value : value;
    }
    case 'reviews':
      return parseReviews(raw, binding, where);
  }
}

function parseReviews(raw: string | boolean, binding: Binding, where: string): unknown {
  const text = typeof raw === 'string' ? raw.trim() : '';
  if (text === 'all' || text === 'none') return { mode: text };
  const m = /^newest:(\d+)$/.exec(text);
  if (m && Number(m[1]) >= 1) return { mode: 'newest', newest: Number(m[1]) };
  const path = (binding.paths[0] ?? []).join('.');
  throw new ConfigError(`config: ${path} must be all, none or newest:N with N >= 1 (from ${where})`, {
    key: path,
  });
}
