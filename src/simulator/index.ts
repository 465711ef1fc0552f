/**
 * A local, faithful implementation of the Fragrance Data Service spec for demos, tests and
 * benchmarks. Every key in `keys` belongs to ONE account: they share one daily quota and one
 * prepaid balance (default key: 'sim-key').
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Account, CallLedger, ServiceClock } from './account.ts';
import { Catalogue } from './catalogue.ts';
import { DEFAULT_CHANGE_MODEL, changeModel } from './change-model.ts';
import { handleControl } from './control.ts';
import { InvalidRecord } from './invalid.ts';
import { DEFAULT_VARIANT } from './model.ts';
import { epochDay, isoDate, mix, mulberry32 } from './prng.ts';
import { commonHeaders, handleV1, type ServerState } from './server.ts';
import { groundTruth } from './truth.ts';
import { truthDigest } from './truth-rows.ts';
import type { ChangeModel, ClockInfo, Simulator, SimulatorOptions } from './types.ts';

export type * from './types.ts';

export const DEFAULT_KEY = 'sim-key';
export { DEFAULT_CHANGE_MODEL } from './change-model.ts';

/** A change model from a partial one; throws on a field out of range or unknown. */
function withPatch(base: ChangeModel, patch: Partial<ChangeModel>): ChangeModel {
  const out = changeModel(base, patch);
  if (typeof out === 'string') throw new RangeError(out);
  return out;
}

export async function startSimulator(opts: SimulatorOptions = {}): Promise<Simulator> {
  const variant = { ...DEFAULT_VARIANT, ...opts.variant };
  const seed = opts.seed ?? 1;
  const clock = new ServiceClock(opts.daySeconds);
  const cat = new Catalogue({
    fragrances: opts.fragrances ?? 300,
    seed,
    variant,
    // Generated reviews end the day before the service clock starts.
    anchorDay: epochDay(clock.nowMs()) - 1,
  });
  const keys = new Set(opts.keys && opts.keys.length > 0 ? opts.keys : [DEFAULT_KEY]);
  const state: ServerState = {
    cat,
    clock,
    account: new Account(opts.dailyQuota ?? 1_000_000, opts.balanceCents ?? 1e9, keys, clock),
    ledger: new CallLedger(),
    variant,
    faults: { errorRate: 0, resetRate: 0, truncateRate: 0, latencyMs: opts.latencyMs ?? 0 },
    faultRng: mulberry32(mix(seed, 0xfa017)),
    ...(opts.invalidRecord ? { invalid: new InvalidRecord(opts.invalidRecord, cat) } : {}),
    paid: opts.recordPaid ? [] : null,
  };
  const serviceDate = (): string => isoDate(epochDay(clock.nowMs()));
  const gauge = { now: 0, peak: 0, requestMs: 0 };
  let model = withPatch(DEFAULT_CHANGE_MODEL, opts.changeModel ?? {});
  let simDay = 0;

  const ops = {
    groundTruth: () => groundTruth(cat, serviceDate()),
    invalidRecord: () => state.invalid?.info ?? null,
    truthDigest: () => truthDigest(groundTruth(cat, serviceDate())),
    advanceDay(o: { churn?: boolean; days?: number } = {}) {
      for (let i = 0; i < (o.days ?? 1); i++) {
        clock.advance(1);
        state.account.rollover();
        simDay++;
        if (o.churn !== false) cat.churn(epochDay(clock.nowMs()), model);
      }
    },
    changeModel: (): ChangeModel => ({ ...model }),
    setChangeModel(patch: Partial<ChangeModel>) {
      model = withPatch(model, patch);
    },
    setRemaining(n: number) {
      state.account.rollover();
      state.account.remaining = Math.max(0, Math.floor(n));
    },
    setLimit(limit: number) {
      state.account.setLimit(Math.max(0, Math.floor(limit)));
    },
    topUp(cents: number) {
      state.account.balanceCents += cents;
    },
    drainAfter(match: (request: string) => boolean, what: 'balance' | 'quota' = 'balance') {
      state.drainAfter = { match, what };
    },
    holdAnswer(match: (request: string) => boolean) {
      let reached!: () => void;
      let release!: () => void;
      const reachedP = new Promise<void>((r) => (reached = r));
      const released = new Promise<void>((r) => (release = r));
      state.hold = { match, reached, released };
      return { reached: reachedP, release };
    },
    setFaults(f: Partial<typeof state.faults>) {
      state.faults = { ...state.faults, ...f };
    },
    ledger: () => state.ledger.snapshot(),
    paidRequests: () => [...(state.paid ?? [])],
    now: () => new Date(clock.nowMs()),
    addReviews(fragranceId: string, count: number) {
      const f = cat.find(fragranceId);
      if (!f) throw new Error(`no fragrance '${fragranceId}'`);
      cat.addReviews(f, Math.floor(count), serviceDate());
    },
    inFlight(o: { reset?: boolean } = {}) {
      const seen = { ...gauge };
      if (o.reset) gauge.peak = gauge.now;
      return seen;
    },
    clock(): ClockInfo {
      state.account.rollover();
      return {
        now: new Date(clock.nowMs()).toISOString(),
        serviceDate: serviceDate(),
        resetEpochSeconds: clock.resetEpochSeconds(),
        remaining: state.account.remaining,
        limit: state.account.limit,
        balanceCents: state.account.balanceCents,
        day: simDay,
      };
    },
  };

  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const qs = q < 0 ? '' : url.slice(q + 1);
    let work: Promise<void> | undefined;
    if (path.startsWith('/v1/')) {
      gauge.now++;
      if (gauge.now > gauge.peak) gauge.peak = gauge.now;
      const t0 = performance.now();
      res.once('close', () => {
        gauge.now--;
        gauge.requestMs += performance.now() - t0;
      });
      work = handleV1(state, req, res, path.slice(4), qs);
    } else if (path.startsWith('/_sim/')) work = handleControl(state, ops, req, res, path.slice(6));
    else {
      res.writeHead(404, { ...commonHeaders(state), 'Content-Type': 'text/plain' });
      res.end('Not found');
    }
    Promise.resolve(work).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  };

  const server = createServer({ keepAliveTimeout: 30_000 }, onRequest);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', resolve);
  });
  const port = (server.address() as AddressInfo).port;
  const host = opts.host ?? '127.0.0.1';
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    ...ops,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
