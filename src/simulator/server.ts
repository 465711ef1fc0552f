/**
 * The HTTP front of the simulator: authentication, quota, balance, faults, billing, then the
 * endpoint handler.
 *
 * Billing rule (the spec leaves it open; this is the simulator's reading):
 * - 401 (no account to bill), 402 (cannot pay) and 429 (no quota) are never billed and never
 *   use quota;
 * - a 200 is billed its price and uses one quota unit, also when the body is then truncated
 *   (the service did the work);
 * - any other failure (400, 404, 405, 422, 500, a connection reset after the request was
 *   read) is billed and uses quota only when the variant's `billFailedCalls` is true.
 * Checks run in that order: (latency,) key, quota, balance, reset/500 faults, handler.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { PRICE_TABLE } from './price-table.ts';
import type { Account, CallLedger, ServiceClock } from './account.ts';
import type { Catalogue } from './catalogue.ts';
import { HANDLERS } from './handlers.ts';
import { ApiError } from './params.ts';
import type { InvalidRecord } from './invalid.ts';
import type { Rng } from './prng.ts';
import { route } from './router.ts';
import type { Faults, SimulatorVariant } from './types.ts';

export interface ServerState {
  cat: Catalogue;
  clock: ServiceClock;
  account: Account;
  ledger: CallLedger;
  variant: SimulatorVariant;
  faults: Faults;
  faultRng: Rng;
  /** SimulatorOptions.invalidRecord, when asked for. */
  invalid?: InvalidRecord;
  /** Billed requests, when the simulator records them (SimulatorOptions.recordPaid). */
  paid: string[] | null;
  /** Set by Simulator.drainAfter: the billed request after which the balance or quota runs out. */
  drainAfter?: { match: (request: string) => boolean; what: 'balance' | 'quota' } | null;
  /** Set by Simulator.holdAnswer: a billed request whose answer waits for `released`. */
  hold?: { match: (request: string) => boolean; reached: () => void; released: Promise<void> } | null;
}

const MAX_BODY_BYTES = 1_000_000;
const JSON_TYPE = 'application/json; charset=utf-8';

export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY_BYTES) chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** Rate-limit headers and the service-clock Date, on every response. */
export function commonHeaders(state: ServerState): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(state.account.limit),
    'X-RateLimit-Remaining': String(state.account.remaining),
    'X-RateLimit-Reset': String(state.clock.resetEpochSeconds()),
    Date: httpDate(state.clock.nowMs()),
  };
}

/**
 * The same headers as a flat [name, value, ...] list, the form writeHead takes without
 * copying an object's keys: the /v1 answers' path, which the benchmarks pay for on the cores
 * the sync runs on. Same names, order and values as commonHeaders.
 */
function headerList(state: ServerState, contentType: string, length: number): string[] {
  return [
    'X-RateLimit-Limit',
    String(state.account.limit),
    'X-RateLimit-Remaining',
    String(state.account.remaining),
    'X-RateLimit-Reset',
    String(state.clock.resetEpochSeconds()),
    'Date',
    httpDate(state.clock.nowMs()),
    'Content-Type',
    contentType,
    'Content-Length',
    String(length),
  ];
}

/** The Date header shows whole seconds: one formatting per second of the service clock. */
let dateSecond = NaN;
let dateText = '';
function httpDate(ms: number): string {
  const second = Math.floor(ms / 1000);
  if (second !== dateSecond) {
    dateSecond = second;
    dateText = new Date(ms).toUTCString();
  }
  return dateText;
}

function withExtras(value: unknown, revision: number): unknown {
  if (Array.isArray(value)) return value.map((v) => withExtras(v, revision));
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = withExtras(v, revision);
  out.x_sim_revision = revision;
  out.x_sim_source = 'simulator';
  return out;
}

function sendJson(
  state: ServerState,
  res: ServerResponse,
  status: number,
  payload: unknown,
  truncate = false,
): void {
  const text = JSON.stringify(state.variant.extraFields ? withExtras(payload, state.cat.version) : payload);
  if (!truncate) {
    // A string goes out with the headers in one write (no Buffer copy, no writev).
    res.writeHead(status, headerList(state, JSON_TYPE, Buffer.byteLength(text)));
    res.end(text);
    return;
  }
  const body = Buffer.from(text);
  res.writeHead(status, headerList(state, JSON_TYPE, body.length));
  // Headers promise the full length; the connection dies half-way through the body.
  res.write(body.subarray(0, Math.floor(body.length / 2)), () => res.destroy());
}

function sendError(
  state: ServerState,
  res: ServerResponse,
  status: number,
  code: string,
  message: string,
): void {
  if (status === 429 || state.variant.errorBody === 'json') {
    sendJson(state, res, status, { error: { code, message } });
    return;
  }
  const text = `${code}: ${message}`;
  res.writeHead(status, headerList(state, 'text/plain; charset=utf-8', Buffer.byteLength(text)));
  res.end(text);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function handleV1(
  state: ServerState,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  qs: string,
) {
  const method = req.method ?? 'GET';
  const r = route(method, path);
  const name = r.name;
  const template = name ? PRICE_TABLE[name].path : '(unmatched)';
  const price = name ? PRICE_TABLE[name].costCents : 0;
  const rawBody = method === 'POST' ? await readBody(req) : '';
  const { account, ledger, faults } = state;
  // Latency comes before the checks, so checking and billing stay one synchronous step and
  // concurrent requests can never overspend the quota or the balance.
  if (faults.latencyMs > 0) await sleep(faults.latencyMs);
  account.rollover();

  const fail = (status: number, code: string, message: string): void => {
    const cents = state.variant.billFailedCalls ? price : 0;
    if (state.variant.billFailedCalls) account.bill(cents);
    ledger.record(template, status, cents);
    sendError(state, res, status, code, message);
  };

  const auth = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
  if (!auth || !account.keys.has(auth[1] as string)) {
    ledger.record(template, 401, 0);
    return sendError(
      state,
      res,
      401,
      'UNAUTHORIZED',
      'A valid API key is required (Authorization: Bearer <key>).',
    );
  }
  if (account.remaining <= 0) {
    ledger.record(template, 429, 0);
    const at = new Date(state.clock.resetEpochSeconds() * 1000).toISOString();
    return sendError(state, res, 429, 'RATE_LIMIT_EXCEEDED', `Daily rate limit exceeded. Resets at ${at}.`);
  }
  if (account.balanceCents < price) {
    ledger.record(template, 402, 0);
    return sendError(
      state,
      res,
      402,
      'PAYMENT_REQUIRED',
      `The prepaid balance cannot pay this ${price}-cent call.`,
    );
  }
  if (faults.resetRate > 0 && state.faultRng() < faults.resetRate) {
    const cents = state.variant.billFailedCalls ? price : 0;
    if (state.variant.billFailedCalls) account.bill(cents);
    ledger.record(template, 0, cents);
    req.socket.resetAndDestroy();
    return;
  }
  if (faults.errorRate > 0 && state.faultRng() < faults.errorRate) {
    return fail(500, 'INTERNAL_ERROR', 'The service failed to process the request.');
  }
  if ('error' in r) {
    if (r.error === 'method') return fail(405, 'METHOD_NOT_ALLOWED', `${method} is not allowed here.`);
    if (r.error === 'bad-encoding')
      return fail(400, state.variant.bad400Code, 'The path is not valid percent-encoding.');
    return fail(404, 'NOT_FOUND', 'No such endpoint.');
  }
  let body: unknown;
  if (method === 'POST') {
    try {
      body = JSON.parse(rawBody);
    } catch {
      return fail(400, state.variant.bad400Code, 'The request body is not valid JSON.');
    }
  }
  let payload: unknown;
  try {
    payload = HANDLERS[r.name]({
      cat: state.cat,
      key: r.key,
      query: new URLSearchParams(qs),
      body,
      bad400: state.variant.bad400Code,
    });
    if (state.invalid) payload = state.invalid.apply(r.name, state.cat, r.key, payload);
  } catch (err) {
    if (err instanceof ApiError) return fail(err.status, err.code, err.message);
    return fail(500, 'INTERNAL_ERROR', 'The service failed to process the request.');
  }
  account.bill(price);
  ledger.record(template, 200, price);
  if (state.paid || state.drainAfter || state.hold) {
    const line = `${method} /v1/${path}${qs ? `?${qs}` : ''}${rawBody ? ` ${rawBody}` : ''}`;
    state.paid?.push(line);
    if (state.drainAfter?.match(line)) {
      if (state.drainAfter.what === 'quota') account.remaining = 0;
      else account.balanceCents = 0;
      state.drainAfter = null;
    }
    const hold = state.hold;
    if (hold?.match(line)) {
      // Billed already: whatever happens to the account meanwhile, this answer is a 200.
      state.hold = null;
      hold.reached();
      await hold.released;
    }
  }
  const truncate = faults.truncateRate > 0 && state.faultRng() < faults.truncateRate;
  sendJson(state, res, 200, payload, truncate);
}
