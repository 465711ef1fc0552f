import { timingSafeEqual } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { HonoAdapter } from '@bull-board/hono';
import { serve, type ServerType } from '@hono/node-server';
import { serveStatic } from '@hono/node-server/serve-static';
import { Queue } from 'bullmq';
import { Hono, type MiddlewareHandler } from 'hono';
import type { Redis } from 'ioredis';
import type { GovernorLimits } from '../governor/types.ts';
import { FETCH_QUEUE, LOAD_QUEUE } from '../queue/fetch-worker.ts';
import { overviewSource } from './overview.ts';
import { renderPage } from './page.ts';

/**
 * `fragsync dashboard`: bull-board for the queues at /queues, our own page at /, its figures
 * as JSON at /api/overview. Hono with its Node server: the lightest of bull-board's adapters
 * (no dependency of its own, against Express's thirty). Read-only throughout: bull-board in
 * its read-only mode, and every method but GET and HEAD refused before any handler.
 */

export const BOARD_PATH = '/queues';

export interface DashboardOptions {
  redis: Redis;
  prefix: string;
  dbPath: string;
  /** Caps and reserve shown when no run is going on. */
  limits: GovernorLimits;
  host: string;
  port: number;
  /** Basic auth, when set: every path asks for it. */
  auth: { user: string; password: string } | null;
}

export interface Dashboard {
  url: string;
  close(): Promise<void>;
}

export async function startDashboard(opts: DashboardOptions): Promise<Dashboard> {
  const source = overviewSource({
    redis: opts.redis,
    prefix: opts.prefix,
    dbPath: opts.dbPath,
    limits: opts.limits,
  });
  const boardQueues = [FETCH_QUEUE, LOAD_QUEUE].map(
    (name) => new Queue(name, { connection: opts.redis, prefix: opts.prefix }),
  );
  const board = new HonoAdapter(serveStatic).setBasePath(BOARD_PATH);
  createBullBoard({
    queues: boardQueues.map((q) => new BullMQAdapter(q, { readOnlyMode: true })),
    serverAdapter: board,
    options: { uiConfig: { boardTitle: `fragsync · ${opts.prefix}` } },
  });

  const app = new Hono();
  app.use('*', readOnly);
  if (opts.auth) app.use('*', basicAuth(opts.auth));
  app.get('/', async (c) => c.html(renderPage(await source.read(), { boardPath: BOARD_PATH })));
  app.get('/api/overview', async (c) => c.json(await source.read()));
  app.route(BOARD_PATH, board.registerPlugin());
  app.onError((err, c) => c.text(`fragsync dashboard: ${err.message.split('\n')[0]}`, 500));

  const server: ServerType = await new Promise((resolve, reject) => {
    const s = serve({ fetch: app.fetch, hostname: opts.host, port: opts.port }, () => resolve(s));
    s.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  return {
    url: `http://${host}:${port}`,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await source.close();
      await Promise.all(boardQueues.map((q) => q.close()));
    },
  };
}

const readOnly: MiddlewareHandler = async (c, next) => {
  if (c.req.method !== 'GET' && c.req.method !== 'HEAD')
    return c.text('read-only', 405, { Allow: 'GET, HEAD' });
  await next();
};

/** Constant-time comparison of the credentials; they are never logged nor echoed. */
function basicAuth(expected: { user: string; password: string }): MiddlewareHandler {
  const want = Buffer.from(`${expected.user}:${expected.password}`);
  return async (c, next) => {
    const header = c.req.header('authorization') ?? '';
    const given = header.startsWith('Basic ') ? Buffer.from(header.slice(6), 'base64') : Buffer.alloc(0);
    if (given.length === want.length && timingSafeEqual(given, want)) return next();
    return c.text('authentication required', 401, {
      'WWW-Authenticate': 'Basic realm="fragsync", charset="UTF-8"',
    });
  };
}
