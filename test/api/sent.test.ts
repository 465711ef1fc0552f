import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { FragranceClient } from '../../src/api/client.ts';
import { ApiError } from '../../src/api/errors.ts';
import { CALL_ID_HEADER } from '../../src/api/exchange.ts';
import { Halt, Halted, NEVER_ABORTED, type ApiCallItem, type SentCall } from '../../src/domain/calls.ts';
import { freePort } from '../helpers/redis-server.ts';
import { captureLogger, expectNoSecret, startRawServer } from './helpers.ts';

/**
 * Each attempt is reported as sent when its headers go onto the wire, before its answer, with
 * the id its ledger row carries: what lets a replay ledger a request a killed process had in
 * flight (test/e2e/governed-kill.test.ts shows the whole chain).
 */
const events: string[] = [];
const seenIds: string[] = [];
let answerNext: (() => void)[] = [];
let server: Awaited<ReturnType<typeof startRawServer>>;
beforeAll(async () => {
  server = await startRawServer((req: IncomingMessage, res: ServerResponse) => {
    events.push('server got it');
    seenIds.push(String(req.headers[CALL_ID_HEADER]));
    // Answered only when the test says so: "sent" must come before any answer.
    answerNext.push(() => {
      res.writeHead(req.url?.includes('broken') ? 500 : 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 'x', similar: [] }));
    });
  });
});
afterAll(() => server.close());

function client(baseUrl: string, sent: SentCall[], calls: ApiCallItem[]): FragranceClient {
  return new FragranceClient({
    baseUrl,
    apiKey: 'k',
    maxRetries: 1,
    retryBaseMs: 1,
    onSent: (c) => {
      events.push('sent');
      sent.push(c);
    },
    onCall: (c) => calls.push(c),
  });
}

test('every attempt is reported sent before its answer, with the id of its ledger row', async () => {
  const sent: SentCall[] = [];
  const calls: ApiCallItem[] = [];
  const c = client(server.url, sent, calls);
  const pending = c.getSimilar('broken', { limit: 50 }).catch((e: unknown) => e);
  while (answerNext.length === 0) await new Promise((r) => setTimeout(r, 5));
  expect(events).toEqual(['sent', 'server got it']); // sent before the service answered
  expect(sent).toHaveLength(1);
  answerNext.shift()!();
  // The 500 is retried: a second attempt, its own id.
  while (answerNext.length === 0) await new Promise((r) => setTimeout(r, 5));
  answerNext.shift()!();
  await pending;
  await c.close();
  expect(sent.map((s) => s.endpoint)).toEqual(['/v1/fragrances/{id}/similar', '/v1/fragrances/{id}/similar']);
  expect(new Set(sent.map((s) => s.callId)).size).toBe(2);
  expect(calls.map((x) => x.callId)).toEqual(sent.map((s) => s.callId));
  expect(seenIds).toEqual(sent.map((s) => s.callId));
  expect(sent[0]).toMatchObject({ method: 'GET', costCents: 2 });
});

test('a request that never left (nobody listening) is not reported sent', async () => {
  const sent: SentCall[] = [];
  const calls: ApiCallItem[] = [];
  const c = client(`http://127.0.0.1:${await freePort()}`, sent, calls);
  await expect(c.getSimilar('a')).rejects.toThrow();
  await c.close();
  expect(sent).toEqual([]);
  expect(calls).toEqual([]);
});

test('a request undici cannot build (a key with a line break) is not sent, not ledgered, not retried', async () => {
  const calls: ApiCallItem[] = [];
  const sent: SentCall[] = [];
  const log = captureLogger();
  const heard = events.length;
  const c = new FragranceClient({
    baseUrl: server.url,
    apiKey: 'k\r\nx-injected: 1',
    maxRetries: 3,
    retryBaseMs: 1,
    logger: log.logger,
    onSent: (s) => sent.push(s),
    onCall: (x) => calls.push(x),
  });
  const err = await c.getSimilar('a').then(
    () => null,
    (e: unknown) => e,
  );
  await c.close();
  // Terminal: a job given this error fails at once instead of retrying without end.
  expect(err).toBeInstanceOf(ApiError);
  expect((err as ApiError).transient).toBe(false);
  expect((err as ApiError).message).toMatch(/could not be built, nothing was sent \(UND_ERR_INVALID_ARG\)/);
  expect(log.lines.filter((l) => l.includes('api request not sent'))).toHaveLength(1);
  expect([sent, calls, events.length - heard]).toEqual([[], [], 0]);
  expectNoSecret('x-injected', err, log.lines);
});

test('without onSent, requests carry no call id header', async () => {
  answerNext = [];
  seenIds.length = 0;
  const c = new FragranceClient({ baseUrl: server.url, apiKey: 'k' });
  const pending = c.getSimilar('plain');
  while (answerNext.length === 0) await new Promise((r) => setTimeout(r, 5));
  answerNext.shift()!();
  await pending;
  await c.close();
  expect(seenIds).toEqual(['undefined']);
});

test('a halt lets a request on the wire be answered and ledgered, and sends nothing more; an abort cuts it off', async () => {
  answerNext = [];
  const sent: SentCall[] = [];
  const calls: ApiCallItem[] = [];
  const halt = new Halt();
  const base = client(server.url, sent, calls);
  const c = base.withCalls((x) => calls.push(x), undefined, halt.signal);
  const onWire = c.getSimilar('finishes', { limit: 50 });
  while (answerNext.length === 0) await new Promise((r) => setTimeout(r, 5));
  halt.halt('the run stops');
  answerNext.shift()!();
  // The answer came back to its caller and is ledgered as answered.
  expect((await onWire).data.id).toBe('x');
  expect(calls.map((x) => x.status)).toEqual([200]);
  // Halted before it leaves: never sent.
  await expect(c.getSimilar('never', { limit: 50 })).rejects.toBeInstanceOf(Halted);
  expect(sent).toHaveLength(1);

  const cut = new AbortController();
  const cutOff = base.getSimilar('cut', { limit: 50 }, cut.signal).catch((e: unknown) => e);
  while (answerNext.length === 0) await new Promise((r) => setTimeout(r, 5));
  cut.abort(new Error('run stops'));
  expect(await cutOff).toMatchObject({ message: 'run stops' });
  answerNext.shift()!();
  await base.close();
  expect(sent).toHaveLength(2);
  expect(calls.map((x) => x.status)).toEqual([200, 0]); // cut off: no answer
});

test('a halt from inside a request being sent (a journal line that failed) lets it and the requests holding a slot go, and no other', async () => {
  answerNext = [];
  seenIds.length = 0;
  const sent: SentCall[] = [];
  const calls: ApiCallItem[] = [];
  const halt = new Halt();
  const base = new FragranceClient({
    baseUrl: server.url,
    apiKey: 'k',
    concurrency: 2,
    connections: 2,
    // As LoadStage's onJournalFailure does: synchronously, inside undici's send path.
    onSent: (c) => {
      sent.push(c);
      if (sent.length === 2) halt.halt('the journal cannot be written');
    },
  });
  const c = base.withCalls((x) => calls.push(x), undefined, halt.signal);
  const all = Array.from({ length: 6 }, (_, i) =>
    c.getSimilar(`h${i}`, { limit: 50 }).then(
      (r) => r.status,
      (e: unknown) => e,
    ),
  );
  while (answerNext.length < 2) await new Promise((r) => setTimeout(r, 5));
  // Both slots free up: the four requests that waited for one must not take them.
  for (const answer of answerNext.splice(0)) answer();
  const results = await Promise.all(all);
  await base.close();
  expect(results.slice(0, 2)).toEqual([200, 200]);
  for (const r of results.slice(2)) expect(r).toBeInstanceOf(Halted);
  expect(sent).toHaveLength(2);
  expect(seenIds).toEqual(sent.map((s) => s.callId));
  expect(calls.map((x) => x.status)).toEqual([200, 200]);
});

test('requests waiting for a slot stop with Halted, however many wait, whatever signal their job has', async () => {
  answerNext = [];
  const warnings: Error[] = [];
  const onWarning = (w: Error): number => warnings.push(w);
  process.on('warning', onWarning);
  const sent: SentCall[] = [];
  const calls: ApiCallItem[] = [];
  const halt = new Halt();
  const base = new FragranceClient({ baseUrl: server.url, apiKey: 'k', concurrency: 1 });
  const c = base.withCalls(
    (x) => calls.push(x),
    (s) => sent.push(s),
    halt.signal,
  );
  const job = new AbortController().signal;
  const onWire = c.getSimilar('first', { limit: 50 }, NEVER_ABORTED);
  // More than node's 10 listeners per signal: the in-process driver's shared signals, a job's own.
  const waiting = Array.from({ length: 30 }, (_, i) =>
    c.getSimilar(`w${i}`, { limit: 50 }, i % 2 === 0 ? NEVER_ABORTED : job).catch((e: unknown) => e),
  );
  while (answerNext.length === 0) await new Promise((r) => setTimeout(r, 5));
  halt.halt('the run stops');
  answerNext.shift()!();
  expect((await onWire).data.id).toBe('x');
  const ended = await Promise.all(waiting);
  await new Promise((r) => setImmediate(r)); // a warning is emitted on the next tick
  process.off('warning', onWarning);
  await base.close();
  expect(ended.every((e) => e instanceof Halted)).toBe(true);
  expect(sent).toHaveLength(1);
  expect(calls.map((x) => x.status)).toEqual([200]);
  expect(warnings.map((w) => w.message)).toEqual([]);
});
