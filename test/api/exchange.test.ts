import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { Transport } from '../../src/api/http.ts';

/** Answers as raw HTTP/1.1, so headers may repeat and change case, and a body may break off. */
let server: Server;
let seeSlow: () => void;
const slowSeen = new Promise<void>((resolve) => (seeSlow = resolve));
let transport: Transport;
beforeAll(async () => {
  server = createServer((req, res) => {
    const socket = res.socket!;
    if (req.url === '/bom') {
      const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":"é"}')]);
      socket.write(
        'HTTP/1.1 200 OK\r\nX-RateLimit-Remaining: 41\r\nx-ratelimit-remaining: 7\r\nX-RATELIMIT-LIMIT:  100 \r\n' +
          `Content-Type: application/json\r\nDate: Tue, 24 Nov 2026 08:00:00 GMT\r\nContent-Length: ${body.length}\r\n\r\n`,
      );
      socket.end(body);
    } else if (req.url === '/cut') {
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{"a":');
      setTimeout(() => socket.destroy(), 20);
    } else if (req.url === '/slow') {
      seeSlow();
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{"a":');
    } else {
      socket.end('HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n');
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  transport = new Transport({
    baseUrl: `http://127.0.0.1:${port}`,
    connections: 2,
    connectTimeoutMs: 1000,
    headersTimeoutMs: 2000,
    bodyTimeoutMs: 2000,
  });
});
afterAll(async () => {
  server.closeAllConnections();
  server.close();
  await transport.close();
});

const get = (path: string, signal?: AbortSignal) =>
  transport.send({ method: 'GET', path, apiKey: 'k' }, signal);

test('an answer reads as pool.request + body.text read it: first of repeated headers, any case, no BOM', async () => {
  const r = await get('/bom');
  expect(r).toMatchObject({
    kind: 'response',
    status: 200,
    contentType: 'application/json',
    text: '{"a":"é"}',
  });
  if (r.kind !== 'response') throw new Error(r.kind);
  expect(r.rateLimit).toMatchObject({ limit: 100, remaining: 41 });
  expect(r.rateLimit.serverDate?.toISOString()).toBe('2026-11-24T08:00:00.000Z');
  expect(await get('/other')).toMatchObject({ kind: 'response', status: 503, text: '' });
});

test('a body that breaks off is bodyFailed with its status; an abort mid-body too', async () => {
  expect(await get('/cut')).toMatchObject({ kind: 'bodyFailed', status: 200 });
  const stop = new AbortController();
  const pending = get('/slow', stop.signal);
  await slowSeen;
  setTimeout(() => stop.abort(new Error('stop')), 100);
  const r = await pending;
  // Aborted with its reason, not left to the body timeout (2 s); on a machine too loaded to
  // read the headers within 100 ms it ends as noResponse, with the same reason.
  expect(['bodyFailed', 'noResponse']).toContain(r.kind);
  if (r.kind === 'bodyFailed') expect(r.status).toBe(200);
  if (r.kind === 'bodyFailed' || r.kind === 'noResponse') expect((r.error as Error).message).toBe('stop');
});

test('a request aborted before it is sent never leaves as a response', async () => {
  const stop = new AbortController();
  stop.abort(new Error('early'));
  const r = await get('/bom', stop.signal);
  expect(r.kind).toBe('noResponse');
});
