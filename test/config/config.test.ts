import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCommandLine } from '../../src/cli/program.ts';
import { BINDINGS, jobConcurrency, loadConfig } from '../../src/config/index.ts';
import { ConfigError } from '../../src/errors.ts';
import { tempDir } from '../helpers/tmp.ts';

let dir: { path: string; cleanup(): Promise<void> };
beforeAll(async () => {
  dir = await tempDir('fragsync-config-');
});
afterAll(() => dir.cleanup());

async function file(name: string, content: unknown): Promise<string> {
  const path = join(dir.path, name);
  await writeFile(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

function errorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

/** The config flags of `fragsync sync ...argv`, as the command line hands them to loadConfig. */
function flags(argv: string[]): Record<string, string | boolean | undefined> {
  const inv = parseCommandLine(['sync', ...argv], { out: () => undefined, err: () => undefined });
  if (inv.kind !== 'run') throw new Error(`not a command line: ${argv.join(' ')}`);
  return inv.flags;
}

describe('loadConfig', () => {
  it('returns the documented defaults from config/default.json', () => {
    const defaults = JSON.parse(readFileSync(new URL('../../config/default.json', import.meta.url), 'utf8'));
    const config = loadConfig({ flags: {}, env: {} });
    expect({ ...config, apiKey: undefined }).toEqual({ ...defaults, apiKey: undefined });
    expect(config.apiKey).toBeNull();
    expect(config.baseUrl).toBeNull();
    expect(config.dbPath).toBe('data/fragsync.duckdb');
    expect(config.objective).toBe('cents');
    expect(config.quota).toEqual({
      reserveCalls: 0,
      reservePercent: 0,
      wait: true,
      resumeJitterMs: 5000,
      recheckMs: 60_000,
    });
    expect(config.datasets.reviews.mode).toBe('all');
    expect(config.datasets.reviewDigest).toBe(false);
  });

  it('applies defaults < file < env < flags', async () => {
    const path = await file('layers.json', {
      dbPath: 'from-file.duckdb',
      objective: 'calls',
      budget: { maxCentsPerRun: 100, maxCentsPerDay: 900 },
      quota: { reserveCalls: 7 },
      http: { connections: 4 },
    });
    const env = { FRAGSYNC_DB: 'from-env.duckdb', FRAGSYNC_MAX_CENTS: '200', FRAGSYNC_OBJECTIVE: 'cents' };
    const config = loadConfig({ flags: flags(['--config', path, '--max-cents', '300', '--no-wait']), env });
    expect(config.dbPath).toBe('from-env.duckdb'); // env over file
    expect(config.budget.maxCentsPerRun).toBe(300); // flag over env over file
    expect(config.budget.maxCentsPerDay).toBe(900); // file over default
    expect(config.objective).toBe('cents'); // env over file
    expect(config.quota.reserveCalls).toBe(7);
    expect(config.quota.reservePercent).toBe(0); // sibling default survives a partial object
    expect(config.quota.wait).toBe(false);
    expect(config.http.connections).toBe(4);
    expect(config.http.concurrency).toBe(32);
  });

  it('prefers FRAGSYNC_REDIS_URL over REDIS_URL, and --reviews newest:N / --concurrency map to their keys', () => {
    const config = loadConfig({
      flags: flags(['--reviews', 'newest:5', '--concurrency', '8', '--review-digest']),
      env: { REDIS_URL: 'redis://a:1', FRAGSYNC_REDIS_URL: 'redis://b:2' },
    });
    expect(config.redisUrl).toBe('redis://b:2');
    expect(config.datasets.reviews).toEqual({ mode: 'newest', newest: 5 });
    expect(config.http.concurrency).toBe(8);
    // Jobs at once follow, unless queue.concurrency says otherwise: four times the requests in
    // flight on BullMQ (a Redis is configured), twice in process.
    expect(config.queue.concurrency).toBeNull();
    expect(jobConcurrency(config)).toBe(32);
    expect(jobConcurrency({ ...config, redisUrl: null })).toBe(16);
    expect(jobConcurrency({ ...config, queue: { ...config.queue, concurrency: 5 } })).toBe(5);
    const inProcess = { ...config, redisUrl: null, queue: { ...config.queue, concurrency: 5 } };
    expect(jobConcurrency(inProcess)).toBe(5);
    expect(config.datasets.reviewDigest).toBe(true);
  });

  it('names the key and the source of every kind of error, in one line', async () => {
    const path = await file('bad.json', { quota: { reservePercent: 150 } });
    const cases: [() => unknown, string][] = [
      [
        () => loadConfig({ flags: { config: path }, env: {} }),
        `config: quota.reservePercent must be between 0 and 100 (from --config ${path})`,
      ],
      [
        () => loadConfig({ flags: flags(['--max-cents=-1']), env: {} }),
        'config: budget.maxCentsPerRun must be a non-negative integer (from flag --max-cents)',
      ],
      [
        () => loadConfig({ flags: {}, env: { FRAGSYNC_MAX_CENTS_PER_DAY: '2.5' } }),
        'config: budget.maxCentsPerDay must be a non-negative integer (from env FRAGSYNC_MAX_CENTS_PER_DAY)',
      ],
      // Number() reads these as 16, 1000 and 2: a cap written by mistake must not pass.
      ...['0x10', '1e3', '0b10'].map((v): [() => unknown, string] => [
        () => loadConfig({ flags: flags(['--max-cents', v]), env: {} }),
        `config: budget.maxCentsPerRun must be a non-negative integer (from flag --max-cents)`,
      ]),
      // An empty number is a mistake, not "unset": FRAGSYNC_MAX_CENTS= ran without a cap.
      [
        () => loadConfig({ flags: {}, env: { FRAGSYNC_MAX_CENTS: '' } }),
        'config: env FRAGSYNC_MAX_CENTS is set but empty: give a number, or unset it',
      ],
      [
        () => loadConfig({ flags: {}, env: { FRAGSYNC_OBJECTIVE: 'speed' } }),
        'config: objective must be cents or calls (from env FRAGSYNC_OBJECTIVE)',
      ],
      [
        () => loadConfig({ flags: flags(['--base-url', 'ftp://x']), env: {} }),
        'config: baseUrl must be an http(s) URL (from flag --base-url)',
      ],
      [
        () => loadConfig({ flags: flags(['--queue-prefix', 'a:b']), env: {} }),
        "config: queue.prefix must be a non-empty string without ':' or spaces (from flag --queue-prefix)",
      ],
      [
        () => loadConfig({ flags: flags(['--reviews', 'some']), env: {} }),
        'config: datasets.reviews must be all, none or newest:N with N >= 1 (from flag --reviews)',
      ],
      [
        () => loadConfig({ flags: {}, env: { FRAGSYNC_RESERVE: 'lots' } }),
        'config: quota.reserveCalls must be a non-negative integer (from env FRAGSYNC_RESERVE)',
      ],
    ];
    // Keys without a message of their own: zod's "Invalid input: expected ..." said as the rest.
    for (const [i, [content, message]] of [
      [{ budget: null }, 'budget must be a JSON object of its keys, not null'],
      [{ http: [] }, 'http must be a JSON object of its keys, not an array'],
      [{ datasets: { reviews: 'all' } }, 'datasets.reviews must be a JSON object of its keys, not a string'],
      [{ dbPath: null }, 'dbPath must be a string, not null'],
    ].entries()) {
      const wrong = await file(`wrong-type-${i}.json`, content);
      cases.push([
        () => loadConfig({ flags: { config: wrong }, env: {} }),
        `config: ${message} (from --config ${wrong})`,
      ]);
    }
    for (const [fn, message] of cases) {
      const err = errorOf(fn);
      expect(err.message).toBe(message);
      expect(err.message).not.toContain('\n');
      expect(err.code).toBe('CONFIG_INVALID');
    }
  });

  it('reports missing and malformed config files with their path', async () => {
    const missing = join(dir.path, 'nope.json');
    expect(errorOf(() => loadConfig({ flags: {}, env: {}, configFile: missing })).message).toMatch(
      new RegExp(`ENOENT.*from --config ${missing}`),
    );
    const broken = await file('broken.json', '{ "dbPath": ');
    expect(errorOf(() => loadConfig({ flags: {}, env: {}, configFile: broken })).message).toMatch(
      /not valid JSON.*from --config/,
    );
  });

  it('refuses unknown keys in a config file, naming the key', async () => {
    const path = await file('typo.json', { http: { concurency: 4 } });
    const err = errorOf(() => loadConfig({ flags: {}, env: {}, configFile: path }));
    expect(err.message).toBe(`config: unknown key http.concurency (from --config ${path})`);
    const top = await file('typo-top.json', { maxCents: 4 });
    expect(errorOf(() => loadConfig({ flags: {}, env: {}, configFile: top })).message).toContain(
      'unknown key maxCents',
    );
  });

  it('names every unknown key of a config file in one line, not only the first', async () => {
    const path = await file('typos.json', {
      http: { concurency: 4, retries: 2 },
      maxCents: 4,
      freshness: { profileDay: 3 },
    });
    const err = errorOf(() => loadConfig({ flags: {}, env: {}, configFile: path }));
    expect(err.message).not.toContain('\n');
    expect(err.message).toMatch(/^config: unknown keys .* \(from --config .*\)$/);
    for (const key of ['http.concurency', 'http.retries', 'maxCents', 'freshness.profileDay'])
      expect(err.message).toContain(key);
    expect(err.message.split(`from --config ${path}`)).toHaveLength(2);
  });

  it('lists the unknown keys by path and names the first other problem in the same line', async () => {
    const path = await file('typo-and-bad.json', {
      maxCents: 4,
      http: { maxRetries: 'x', concurency: 4 },
      datasets: { zzz: true },
    });
    const err = errorOf(() => loadConfig({ flags: {}, env: {}, configFile: path }));
    expect(err.message).not.toContain('\n');
    expect(err.message).toMatch(
      new RegExp(
        `^config: unknown keys datasets\\.zzz, http\\.concurency, maxCents \\(from --config ${path}\\); ` +
          `and http\\.maxRetries must be .+ \\(from --config ${path}\\)$`,
      ),
    );
  });

  it('refuses an API key in a config file and points to the environment variable', async () => {
    for (const [name, content] of [
      ['key1.json', { apiKey: 'abc' }],
      ['key2.json', { http: { api_key: 'abc' } }],
      ['key3.json', { token: 'abc' }],
    ] as const) {
      const path = await file(name, content);
      const err = errorOf(() => loadConfig({ flags: {}, env: {}, configFile: path }));
      expect(err.message).toContain('FRAGSYNC_API_KEY');
      expect(err.message).toContain(`from --config ${path}`);
      expect(err.message).not.toContain('abc');
    }
    expect(BINDINGS.map((b) => b.flag)).not.toContain('api-key');
  });

  it('refuses a key with a line ending or surrounding space, without printing it', () => {
    for (const key of ['sekret-42\r', 'sekret-42\n', 'sek\tret-42', ' sekret-42']) {
      const err = errorOf(() => loadConfig({ flags: {}, env: { FRAGSYNC_API_KEY: key } }));
      expect(err.message).toMatch(
        /^config: apiKey holds a control character or a space around it .*\(from env FRAGSYNC_API_KEY\)$/,
      );
      expect(err.message).not.toContain('sek');
    }
    const ok = loadConfig({ flags: {}, env: { FRAGSYNC_API_KEY: 'sk_live.AZaz09-_~+/=' } });
    expect(ok.apiKey).toBe('sk_live.AZaz09-_~+/=');
  });

  it('reads the API key from FRAGSYNC_API_KEY only and never prints it', () => {
    const secret = 'sk-live-0123456789abcdef';
    const config = loadConfig({ flags: {}, env: { FRAGSYNC_API_KEY: secret } });
    expect(config.apiKey).toBe(secret);
    expect(JSON.stringify(config)).not.toContain(secret);
    expect(JSON.stringify(config)).toContain('[redacted]');
    expect(inspect(config, { depth: 10 })).not.toContain(secret);
    expect(inspect({ wrapped: config }, { depth: 10 })).not.toContain(secret);
    expect(`${inspect(config)}`).toContain('dbPath');
  });

  it('is deeply frozen', () => {
    const config = loadConfig({ flags: {}, env: {} });
    expect(() => {
      (config as { dbPath: string }).dbPath = 'x';
    }).toThrow(TypeError);
    expect(() => {
      (config.quota as { reserveCalls: number }).reserveCalls = 9;
    }).toThrow(TypeError);
    expect(() => {
      (config.datasets.reviews as { mode: string }).mode = 'none';
    }).toThrow(TypeError);
    expect(config.quota.reserveCalls).toBe(0);
  });
});
