import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import type { EndpointName } from '../../src/domain/endpoints.ts';
import { ENDPOINTS } from '../../src/domain/endpoints.ts';
import type { Governor, GovernorStatus } from '../../src/governor/types.ts';
import type {
  Admission,
  ApiCallItem,
  CallOutcome,
  CallTicket,
  RefusalReason,
} from '../../src/domain/calls.ts';

/** A key nobody would write by accident, so its absence from output means something. */
export const SECRET_KEY = 'sk-live-9f8e7d6c5b4a-SECRET';

export function callRecorder(): { calls: ApiCallItem[]; onCall: (c: ApiCallItem) => void } {
  const calls: ApiCallItem[] = [];
  return { calls, onCall: (c) => calls.push(c) };
}

/** A pino logger at debug level whose JSON lines land in an array. */
export function captureLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(chunk.toString());
      cb();
    },
  });
  return { logger: pino({ level: 'debug' }, stream), lines };
}

/**
 * The Governor interface, scripted: each admit() takes the next scripted refusal (if any),
 * otherwise admits. Records what the client told it. Only for testing the client's wiring.
 */
export class ScriptedGovernor implements Governor {
  readonly admitted: CallTicket[] = [];
  readonly settled: { ticket: CallTicket; outcome: CallOutcome }[] = [];
  readonly released: CallTicket[] = [];
  admitCalls = 0;
  private n = 0;

  constructor(private readonly refusals: { reason: RefusalReason; until?: Date }[] = []) {}

  async admit(endpoint: EndpointName): Promise<Admission> {
    this.admitCalls++;
    const refusal = this.refusals.shift();
    if (refusal)
      return {
        ok: false,
        reason: refusal.reason,
        until: refusal.until ?? null,
        message: `refused: ${refusal.reason}`,
      };
    const ticket = { id: `t${++this.n}`, endpoint, costCents: ENDPOINTS[endpoint].costCents };
    this.admitted.push(ticket);
    return { ok: true, ticket };
  }
  async recheck(endpoint: EndpointName): Promise<Admission> {
    return this.admit(endpoint);
  }
  async settle(ticket: CallTicket, outcome: CallOutcome): Promise<void> {
    this.settled.push({ ticket, outcome });
  }
  async release(ticket: CallTicket): Promise<void> {
    this.released.push(ticket);
  }
  async seedSpend(): Promise<void> {}
  async startRun(): Promise<void> {}
  async status(): Promise<GovernorStatus> {
    throw new Error('not used by the client');
  }
  async pausedUntil(): Promise<Date | null> {
    return null;
  }
  async close(): Promise<void> {}
}

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** A real HTTP server on a free port, for responses no spec-following service would send. */
export async function startRawServer(
  handler: Handler,
): Promise<{ url: string; requests: string[]; close(): Promise<void> }> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Assert that no rendering of an error, nor any log line, contains the key. */
export function expectNoSecret(key: string, err: unknown, lines: string[] = []): void {
  const e = err as Error;
  const renderings = [
    String(err),
    JSON.stringify(err),
    e?.stack ?? '',
    JSON.stringify((err as { rawBody?: unknown }).rawBody ?? null),
    ...lines,
  ];
  for (const text of renderings) {
    if (text.includes(key)) throw new Error(`secret leaked into: ${text.slice(0, 300)}`);
  }
}
