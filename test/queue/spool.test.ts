import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, inject, test } from 'vitest';
import { CallSpool } from '../../src/queue/spool.ts';
import type { JobOutcome } from '../../src/queue/types.ts';
import { job, PRIORITY } from '../../jobs/job-id.ts';
import { unansweredRow, type ApiCallItem } from '../../src/domain/calls.ts';
import { readCalls } from '../../src/warehouse/sent-calls.ts';
import { connect, deletePrefix, spawnChild } from '../governor/redis-helpers.ts';
import { uniquePrefix } from '../helpers/tmp.ts';
import { answeredCall as answer, sentCall } from '../warehouse/fixtures.ts';

/**
 * The worker spool against a real Redis and real files: what it keeps, when it lets go, and
 * what it reports again (src/queue/spool.ts).
 */

const CHILD = fileURLToPath(new URL('./spool-child.ts', import.meta.url));
const silent = pino({ level: 'silent' });

let redis: Redis;
let prefix: string;
let dir: string;
beforeEach(async () => {
  redis = connect(inject('redisUrl'));
  prefix = uniquePrefix('spool');
  dir = await mkdtemp(join(tmpdir(), 'fragsync-spool-'));
});
afterEach(async () => {
  await deletePrefix(redis, prefix);
  redis.disconnect();
  await rm(dir, { recursive: true, force: true });
});

const jobKey = (id: string) => `${prefix}:load:${id}`;

/** A job outcome carrying `calls`, as a fetch worker reports it. */
const outcome = (calls: ApiCallItem[]): JobOutcome => ({
  type: 'requeued',
  job: { id: 'note-a', runId: 'run-a', spec: job('note', { slug: 'a' }, PRIORITY.entity) },
  calls,
});

/**
 * A spool whose reports are recorded (`made`: ledger rows, `resent`: outcomes sent again);
 * `pending`: each report's load job waits in Redis.
 */
async function openSpool(pending: boolean) {
  const made: { runId: string; calls: ApiCallItem[] }[] = [];
  const resent: { jobId: string; outcome: JobOutcome }[] = [];
  const spool = await CallSpool.open({
    dir,
    redis,
    prefix,
    report: async (runId, calls) => {
      made.push({ runId, calls });
      const id = `report-${made.length}-${Math.random()}`;
      if (pending) await redis.set(jobKey(id), '1');
      return id;
    },
    resend: async (outcome, jobId) => {
      resent.push({ jobId, outcome });
      if (pending) await redis.set(jobKey(jobId), '1');
    },
    rotateMs: 60_000,
    log: silent,
  });
  return { spool, made, resent };
}

describe('CallSpool', () => {
  test("a dead process's spool is reported by the next one: answers as they were, requests on the wire without an answer", async () => {
    const { child, firstLine, exited } = spawnChild([inject('redisUrl'), prefix, dir], CHILD);
    expect(await firstLine).toBe('ready');
    child.kill('SIGKILL');
    await exited;

    const { spool, made } = await openSpool(false);
    // c1's report was taken before the kill; c2 was answered but not reported; c3 was on the wire.
    expect(made).toEqual([{ runId: 'run-a', calls: [answer('c2', 500), unansweredRow(sentCall('c3'))] }]);
    const other = await openSpool(false);
    expect(other.made).toEqual([]);
    await other.spool.close(0);
    await spool.close(0);
    expect(await readdir(dir)).toEqual([]);
  });

  test("takes over only its own host's spools: a folder shared by containers has other pid spaces", async () => {
    // No pid is above 2^22 on Linux: these owners are dead, wherever they ran.
    const line = `${JSON.stringify({ runId: 'run-b', items: [], progress: [], sent: [sentCall('x1')] })}\n`;
    const here = `${encodeURIComponent(hostname())}~99999999-0badf00d-1.jsonl`;
    const there = `${encodeURIComponent(`not-${hostname()}`)}~99999999-0badf00d-1.jsonl`;
    await writeFile(join(dir, here), line);
    await writeFile(join(dir, there), line);
    const { spool, made } = await openSpool(false);
    expect(made).toEqual([{ runId: 'run-b', calls: [unansweredRow(sentCall('x1'))] }]);
    await spool.close(0);
    expect(await readdir(dir)).toEqual([there]);
  });

  test('keeps what it wrote until the owner took the report that carries it', async () => {
    const { spool } = await openSpool(true);
    spool.sent('run-a', sentCall('c1'));
    spool.answered('run-a', answer('c1', 200));
    await redis.set(jobKey('j1'), '1');
    spool.reported(outcome([answer('c1', 200)]), 'j1');
    await spool.check();
    expect((await readdir(dir)).length).toBe(1);
    await redis.del(jobKey('j1')); // the owner took it
    await spool.check();
    expect(await readdir(dir)).toEqual([]);
    await spool.close(0);
  });

  test('after Redis lost its data, reports again every row and outcome not known to be taken', async () => {
    const { spool, made, resent } = await openSpool(true);
    for (const id of ['c1', 'c2', 'c3']) {
      spool.sent('run-a', sentCall(id));
      spool.answered('run-a', answer(id, 200));
    }
    await redis.set(jobKey('j1'), '1');
    const first = outcome([answer('c1', 200)]);
    spool.reported(first, 'j1');
    // c3's row was reported by the spool itself (as a dead worker's spool is).
    await redis.set(jobKey('j3'), '1');
    spool.reported({ type: 'ledger', runId: 'run-a', calls: [answer('c3', 200)] }, 'j3');
    await spool.check();
    expect(made).toEqual([]);

    await deletePrefix(redis, prefix); // j1, j3 and the spool's marker are gone
    await spool.check();
    // The outcomes go again whole under their ids; c2's job is still running: its row goes
    // with that job's report, not now.
    expect(resent).toEqual([
      { jobId: 'j1', outcome: first },
      { jobId: 'j3', outcome: { type: 'ledger', runId: 'run-a', calls: [answer('c3', 200)] } },
    ]);
    expect(made).toEqual([]);
    await spool.check();
    expect(resent).toHaveLength(2);
    // Taken this time: nothing more is reported, and of the rows only c2's is kept (its job
    // has not reported yet), so a process that takes this spool over reports c2 alone.
    await redis.del(jobKey('j1'), jobKey('j3'));
    await spool.check();
    await spool.check();
    expect([made, resent.length]).toEqual([[], 2]);
    await spool.close(0);
    const kept = readCalls((await readdir(dir)).map((f) => join(dir, f)));
    expect([...kept.answered.values()]).toEqual([{ runId: 'run-a', call: answer('c2', 200) }]);
  });
});
