import type { Simulator } from '../../src/simulator/index.ts';

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed JSON, or undefined when the body is not JSON. */
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** Plain fetch against the simulator: the project's API client is not used here on purpose. */
export async function call(
  sim: Simulator,
  path: string,
  opts: { key?: string | null; method?: string; body?: unknown } = {},
): Promise<Reply> {
  const headers: Record<string, string> = {};
  const key = opts.key === undefined ? 'sim-key' : opts.key;
  if (key !== null) headers.authorization = `Bearer ${key}`;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${sim.url}${path}`, {
    method: opts.method ?? (opts.body === undefined ? 'GET' : 'POST'),
    headers,
    body:
      opts.body === undefined
        ? undefined
        : typeof opts.body === 'string'
          ? opts.body
          : JSON.stringify(opts.body),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** Each segment of a two-segment id percent-encoded, joined by '/'. */
export function idPath(id: string): string {
  return id.split('/').map(encodeURIComponent).join('/');
}
