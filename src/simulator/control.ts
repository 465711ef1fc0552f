/**
 * Control endpoints under /_sim/ (no key needed, never billed, not in the ledger): the same
 * operations as the Simulator methods, for tests and demos that drive a separate process.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { changeModel } from './change-model.ts';
import { commonHeaders, readBody, type ServerState } from './server.ts';
import type { Faults, Simulator } from './types.ts';

type Ops = Omit<Simulator, 'url' | 'port' | 'close'>;

class BadControl extends Error {}

function num(body: Record<string, unknown>, key: string, min: number, optional = false): number | undefined {
  const v = body[key];
  if (v === undefined && optional) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min)
    throw new BadControl(`'${key}' must be a number >= ${min}`);
  return v;
}

function rate(body: Record<string, unknown>, key: keyof Faults): number | undefined {
  const v = num(body, key, 0, true);
  if (v !== undefined && key !== 'latencyMs' && v > 1) throw new BadControl(`'${key}' must be from 0 to 1`);
  return v;
}

export async function handleControl(
  state: ServerState,
  ops: Ops,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
): Promise<void> {
  const reply = (status: number, payload: unknown): void => {
    const body = JSON.stringify(payload);
    res.writeHead(status, { ...commonHeaders(state), 'Content-Type': 'application/json; charset=utf-8' });
    res.end(body);
  };
  const method = req.method ?? 'GET';
  const raw = method === 'POST' ? await readBody(req) : '';
  try {
    let body: Record<string, unknown> = {};
    if (raw.trim() !== '') {
      const parsed: unknown = JSON.parse(raw);
      if (typeof parsed !== 'object' || parsed === null) throw new BadControl('body must be a JSON object');
      body = parsed as Record<string, unknown>;
    }
    const op = `${method} ${path}`;
    switch (op) {
      case 'GET truth':
        return reply(200, ops.groundTruth());
      case 'GET truth-digest':
        return reply(200, ops.truthDigest());
      case 'GET ledger':
        return reply(200, ops.ledger());
      case 'GET clock':
        return reply(200, ops.clock());
      case 'GET in-flight':
        return reply(200, ops.inFlight());
      case 'POST advance-day': {
        const days = num(body, 'days', 1, true);
        if (days !== undefined && !Number.isInteger(days)) throw new BadControl("'days' must be an integer");
        ops.advanceDay({ churn: body.churn !== false, days });
        return reply(200, ops.clock());
      }
      case 'GET change-model':
        return reply(200, ops.changeModel());
      case 'POST change-model': {
        const next = changeModel(ops.changeModel(), body);
        if (typeof next === 'string') throw new BadControl(next);
        ops.setChangeModel(next);
        return reply(200, ops.changeModel());
      }
      case 'POST remaining':
        ops.setRemaining(num(body, 'remaining', 0) as number);
        return reply(200, ops.clock());
      case 'POST limit':
        ops.setLimit(num(body, 'limit', 0) as number);
        return reply(200, ops.clock());
      case 'POST top-up':
        ops.topUp(num(body, 'cents', 0) as number);
        return reply(200, ops.clock());
      case 'POST faults': {
        const f: Partial<Faults> = {};
        for (const k of ['errorRate', 'resetRate', 'truncateRate', 'latencyMs'] as const) {
          const v = rate(body, k);
          if (v !== undefined) f[k] = v;
        }
        ops.setFaults(f);
        return reply(200, { faults: state.faults });
      }
      case 'POST reviews': {
        if (typeof body.fragranceId !== 'string') throw new BadControl("'fragranceId' must be a string");
        ops.addReviews(body.fragranceId, num(body, 'count', 1) as number);
        return reply(200, { ok: true });
      }
      default:
        return reply(404, { error: { code: 'NOT_FOUND', message: `No control operation ${op}.` } });
    }
  } catch (err) {
    if (err instanceof BadControl || err instanceof SyntaxError) {
      return reply(400, { error: { code: 'BAD_REQUEST', message: err.message } });
    }
    const message = err instanceof Error ? err.message : String(err);
    return reply(404, { error: { code: 'NOT_FOUND', message } });
  }
}
