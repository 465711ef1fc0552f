import { readFileSync } from 'node:fs';
import { inspect } from 'node:util';
import type { z } from 'zod';
import { ConfigError } from '../errors.ts';
import { BINDINGS, convert } from './bindings.ts';
import { ConfigSchema, type Config } from './schema.ts';

export { BINDINGS, CONFIG_FILE_FLAG, SECRET_ENV, bindingOf, type Binding } from './bindings.ts';
export { ConfigSchema, LOG_LEVELS } from './schema.ts';
export type { Config, DatasetsConfig, Objective } from './schema.ts';

export interface LoadConfigInput {
  flags: Record<string, string | boolean | undefined>;
  env: NodeJS.ProcessEnv;
  /** Overrides flags.config. */
  configFile?: string;
}

type Tree = Record<string, unknown>;
/** Source of each value written, keyed by dotted path, for error messages. */
type Sources = Map<string, string>;

const DEFAULTS_URL = new URL('../../config/default.json', import.meta.url);
const DEFAULTS_SOURCE = 'defaults config/default.json';
const REDACTED = '[redacted]';

/**
 * Builds the configuration from defaults < config file < environment < flags, validates it
 * once and returns a deeply frozen object whose JSON and inspect forms hide the API key.
 */
export function loadConfig(input: LoadConfigInput): Config {
  const sources: Sources = new Map();
  const tree: Tree = {};
  mergeInto(tree, readJson(DEFAULTS_URL, DEFAULTS_SOURCE), [], DEFAULTS_SOURCE, sources);

  const file = input.configFile ?? stringFlag(input.flags.config);
  if (file !== undefined) {
    const source = `--config ${file}`;
    const content = readJson(file, source);
    refuseSecrets(content, [], source);
    mergeInto(tree, content, [], source, sources);
  }

  for (const binding of BINDINGS) {
    for (const name of binding.env ?? []) {
      const raw = input.env[name];
      if (raw === undefined) continue;
      // Empty is unset for a text value (compose's `${VAR:-}`), but a number left empty is
      // a mistake: FRAGSYNC_MAX_CENTS= taken as unset would run without the cap it meant.
      if (raw === '' && binding.kind === 'number')
        throw new ConfigError(`config: env ${name} is set but empty: give a number, or unset it`);
      if (raw === '') continue;
      const where = `env ${name}`;
      for (const path of binding.paths) setPath(tree, path, convert(binding, raw, where), where, sources);
    }
  }
  tree.apiKey = input.env.FRAGSYNC_API_KEY ? input.env.FRAGSYNC_API_KEY : null;
  sources.set('apiKey', 'env FRAGSYNC_API_KEY');

  for (const binding of BINDINGS) {
    if (binding.flag === undefined) continue;
    const raw = input.flags[binding.flag];
    if (raw === undefined) continue;
    const where = `flag --${binding.flag}`;
    for (const path of binding.paths) setPath(tree, path, convert(binding, raw, where), where, sources);
  }

  const parsed = ConfigSchema.safeParse(tree);
  if (!parsed.success) throw toConfigError(parsed.error, sources);
  return protect(parsed.data);
}

function stringFlag(value: string | boolean | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function readJson(file: string | URL, source: string): Tree {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new ConfigError(`config: cannot read the config file (${reason}) (from ${source})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(
      `config: the config file is not valid JSON: ${(err as Error).message} (from ${source})`,
    );
  }
  if (!isPlainObject(value))
    throw new ConfigError(`config: the config file must hold a JSON object (from ${source})`);
  return value;
}

/** Keys that look like a credential: the key belongs in FRAGSYNC_API_KEY, never in a file. */
function refuseSecrets(value: Tree, path: string[], source: string): void {
  for (const [key, child] of Object.entries(value)) {
    const norm = key.toLowerCase().replace(/[^a-z]/g, '');
    const secret =
      norm.includes('apikey') ||
      norm.includes('token') ||
      norm.includes('secret') ||
      norm.includes('password') ||
      ['key', 'authorization', 'bearer'].includes(norm);
    const at = [...path, key].join('.');
    if (secret) {
      throw new ConfigError(
        `config: ${at} is not allowed in a config file; set the API key in the FRAGSYNC_API_KEY environment variable (from ${source})`,
        { key: at },
      );
    }
    if (isPlainObject(child)) refuseSecrets(child, [...path, key], source);
  }
}

function isPlainObject(value: unknown): value is Tree {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function mergeInto(target: Tree, from: Tree, path: string[], source: string, sources: Sources): void {
  for (const [key, value] of Object.entries(from)) {
    const at = [...path, key];
    sources.set(at.join('.'), source);
    if (isPlainObject(value)) {
      if (!isPlainObject(target[key])) target[key] = {};
      mergeInto(target[key] as Tree, value, at, source, sources);
    } else {
      target[key] = value;
    }
  }
}

function setPath(tree: Tree, path: string[], value: unknown, source: string, sources: Sources): void {
  let node = tree;
  for (const key of path.slice(0, -1)) {
    if (!isPlainObject(node[key])) node[key] = {};
    node = node[key] as Tree;
  }
  const last = path[path.length - 1] as string;
  if (isPlainObject(value)) {
    // A partial object (e.g. --reviews all) keeps the sibling values it does not mention.
    if (!isPlainObject(node[last])) node[last] = {};
    sources.set(path.join('.'), source);
    mergeInto(node[last] as Tree, value, path, source, sources);
    return;
  }
  node[last] = value;
  sources.set(path.join('.'), source);
}

/** The source that wrote `path`, or the closest enclosing value that did. */
function sourceOf(path: string, sources: Sources): string {
  for (let p = path; p !== ''; p = p.includes('.') ? p.slice(0, p.lastIndexOf('.')) : '') {
    const s = sources.get(p);
    if (s) return s;
  }
  return DEFAULTS_SOURCE;
}

function toConfigError(error: z.ZodError, sources: Sources): ConfigError {
  const unknown = unknownKeys(error);
  // The first problem that is not an unknown key is named too: mending the typo alone would
  // only lead to a second refusal.
  const issue = error.issues.find((i) => i.code !== 'unrecognized_keys');
  const other = issue ? issueText(issue, sources) : null;
  if (unknown.length > 0) return unknownKeyError(unknown, sources, other);
  if (!issue || !other) return new ConfigError('config: invalid configuration');
  return new ConfigError(`config: ${other}`, { key: issue.path.map(String).join('.') });
}

/** One problem as the message says it: the key's path, what is wrong, and who wrote it. */
function issueText(issue: z.core.$ZodIssue, sources: Sources): string {
  const path = issue.path.map(String).join('.');
  const said =
    issue.code === 'invalid_type' && issue.message.startsWith('Invalid input')
      ? wrongType(issue.expected, issue.message)
      : issue.message;
  return `${path} ${said} (from ${sourceOf(path, sources)})`;
}

/** Every unknown key, in every section, by path: a file with two typos is mended in one try. */
function unknownKeys(error: z.ZodError): string[] {
  const keys: string[] = [];
  for (const issue of error.issues) {
    if (issue.code !== 'unrecognized_keys') continue;
    const at = issue.path.map(String);
    for (const key of issue.keys) keys.push([...at, key].join('.'));
  }
  return keys.sort();
}

/** One line, each source named once after the keys it wrote, then the other problem if any. */
function unknownKeyError(keys: string[], sources: Sources, other: string | null): ConfigError {
  const bySource = new Map<string, string[]>();
  for (const key of keys) {
    const source = sourceOf(key, sources);
    bySource.set(source, [...(bySource.get(source) ?? []), key]);
  }
  const parts = [...bySource].map(([source, ks]) => `${ks.join(', ')} (from ${source})`);
  const noun = keys.length === 1 ? 'key' : 'keys';
  const also = other ? `; and ${other}` : '';
  return new ConfigError(`config: unknown ${noun} ${parts.join('; ')}${also}`, { key: keys.join(',') });
}

/**
 * Keys without a message of their own (a section such as `budget`, a path, a string) would
 * show zod's "Invalid input: expected object, received null"; said as the other keys say it.
 */
function wrongType(expected: string, message: string): string {
  const received = /received (\w+)/.exec(message)?.[1];
  const what = expected === 'object' ? 'a JSON object of its keys' : article(expected);
  return `must be ${what}${received ? `, not ${received === 'null' ? 'null' : article(received)}` : ''}`;
}

const article = (noun: string): string => `${/^[aeiou]/.test(noun) ? 'an' : 'a'} ${noun}`;

function redacted(config: Config): unknown {
  return { ...config, apiKey: config.apiKey === null ? null : REDACTED };
}

/** Deep-freezes the config and hides the API key from JSON.stringify and util.inspect. */
function protect(config: Config): Config {
  Object.defineProperty(config, 'toJSON', { value: () => redacted(config), enumerable: false });
  Object.defineProperty(config, inspect.custom, {
    value: (_depth: number, options: object) => inspect(redacted(config), options),
    enumerable: false,
  });
  return deepFreeze(config);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/**
 * Jobs a process runs at once (see queue.concurrency): the setting, else four times
 * http.concurrency on the BullMQ driver (a Redis configured: the sync and every worker) and
 * twice in process. A BullMQ worker takes its jobs from Redis one at a time, so at twice the
 * slots sat idle 15-23% of a 20 ms fetch waiting for a job or a ticket; four times keeps them
 * 0.94-0.95 busy (docs/benchmarks.md, Session 10 and 11: latency). In process a job starts
 * as soon as one ends: twice already keeps them 0.99 busy.
 */
export function jobConcurrency(config: Config): number {
  return config.queue.concurrency ?? (config.redisUrl ? 4 : 2) * config.http.concurrency;
}
