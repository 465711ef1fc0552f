import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import pino from 'pino';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { LoadStage } from '../../src/sync/load-stage.ts';
import { replayJournal } from '../../src/sync/open-run.ts';
import type { ApiCallItem, SentCall } from '../../src/domain/calls.ts';
import type { LoadEntry } from '../../src/domain/items.ts';
import { sentOnlyRun } from '../../src/warehouse/journal.ts';
import { Warehouse } from '../../src/warehouse/warehouse.ts';
import { runUnderFileLimit } from '../helpers/sync-process.ts';
import { tempDir } from '../helpers/tmp.ts';

let dir: { path: string; cleanup(): Promise<void> };
beforeEach(async () => {
  dir = await tempDir('fragsync-loadstage-');
});
afterEach(() => dir.cleanup());

const sent = (callId: string, endpoint: string, costCents: number): SentCall => ({
  callId,
  at: '2026-01-01T00:00:01.000Z',
  method: 'GET',
  endpoint,
  costCents,
});
const answer = (s: SentCall): ApiCallItem => ({
  kind: 'apiCall',
  at: s.at,
  method: s.method,
  endpoint: s.endpoint,
  status: 200,
  costCents: s.costCents,
  quotaRemaining: 10,
  callId: s.callId,
});
const line = (e: LoadEntry) => `${JSON.stringify(e)}\n`;

test('replay ledgers a request a killed process sent and never saw answered, once', async () => {
  const db = `${dir.path}/w.duckdb`;
  const wh = await Warehouse.open(db);
  await wh.startRun('r1', new Date('2026-01-01T00:00:00Z'));
  const [a, b, c] = [
    sent('p-1', '/v1/notes', 1),
    sent('p-2', '/v1/fragrances/{id}/similar', 2),
    sent('p-3', '/v1/notes', 1),
  ];
  // Segment 1: a and b sent, a answered; sealed before b's answer, so b is sent again in
  // segment 2 (LoadStage carries requests in flight across a flush); c sent, then the kill.
  await writeFile(
    `${db}.journal-s1.sealed.jsonl`,
    line({ runId: 'r1', items: [], progress: [], sent: [a, b] }) +
      line({ runId: 'r1', items: [answer(a)], progress: [] }),
  );
  await writeFile(
    `${db}.journal-s2.jsonl`,
    line({ runId: 'r1', items: [], progress: [], sent: [b] }) +
      line({ runId: 'r1', items: [], progress: [], sent: [c] }) +
      line({ runId: 'r1', items: [answer(c)], progress: [] }).slice(0, 30), // cut by the kill
  );
  const log = pino({ level: 'silent' });
  expect(await replayJournal(wh, db, log)).toBe(3); // two segments and the answers' own
  expect(await replayJournal(wh, db, log)).toBe(0);
  const rows = await wh.query<{ endpoint: string; status: number; cost_cents: number }>(
    'SELECT endpoint, status, cost_cents FROM api_calls ORDER BY status DESC, endpoint',
  );
  expect(rows.map((r) => [r.endpoint, Number(r.status), Number(r.cost_cents)])).toEqual([
    ['/v1/notes', 200, 1],
    ['/v1/fragrances/{id}/similar', 0, 2],
    ['/v1/notes', 0, 1],
  ]);
  await wh.close();
});

test("the results of one event-loop turn are journaled together, before any job's slot is freed", async () => {
  const db = `${dir.path}/turn.duckdb`;
  const wh = await Warehouse.open(db);
  await wh.startRun('r1', new Date('2026-01-01T00:00:00Z'));
  const stage = new LoadStage(wh, db, 'r1', {
    batchItems: 1000,
    flushMs: 60_000,
    log: pino({ level: 'silent' }),
  });
  const journaled = () =>
    readdirSync(dir.path)
      .filter((f) => f.startsWith('turn.duckdb.journal-'))
      .flatMap((f) => readFileSync(`${dir.path}/${f}`, 'utf8').split('\n').filter(Boolean));
  const calls = [sent('t-1', '/v1/notes', 1), sent('t-2', '/v1/notes', 1), sent('t-3', '/v1/notes', 1)];
  for (const c of calls) stage.add([answer(c)], []);
  // Nothing written yet in this turn; durable() is what a job's slot waits for.
  expect(journaled()).toEqual([]);
  await stage.durable();
  expect(
    journaled().map((l) => (JSON.parse(l) as LoadEntry).items.map((i) => (i as ApiCallItem).callId)),
  ).toEqual([['t-1'], ['t-2'], ['t-3']]);
  await stage.close();
  expect(Number((await wh.query<{ n: number }>('SELECT count(*)::INTEGER AS n FROM api_calls'))[0]?.n)).toBe(
    3,
  );
  await wh.close();
});

test("a request's line is a LoadEntry of its run, which the loader skips unparsed only when it can", async () => {
  const db = `${dir.path}/lines.duckdb`;
  const wh = await Warehouse.open(db);
  const journaled = () =>
    readdirSync(dir.path)
      .filter((f) => f.startsWith('lines.duckdb.journal-'))
      .flatMap((f) => readFileSync(`${dir.path}/${f}`, 'utf8').split('\n').filter(Boolean));
  const log = pino({ level: 'silent' });
  // A run id needing an escape is parsed by the loader instead (sentOnlyRun says null).
  for (const [runId, skipped] of [
    ['r1', 'r1'],
    ['r"2', null],
  ] as const) {
    const stage = new LoadStage(wh, db, runId, { batchItems: 1000, flushMs: 60_000, log });
    const call = sent(`${runId}-c`, '/v1/fragrances/{id}', 2);
    stage.sent(call);
    const [text] = journaled();
    expect(JSON.parse(text!)).toEqual({ runId, items: [], progress: [], sent: [call] });
    expect(sentOnlyRun(text!)).toBe(skipped);
    await stage.close();
    for (const f of readdirSync(dir.path).filter((f) => f.includes('.journal-'))) rmSync(`${dir.path}/${f}`);
  }
  await wh.close();
});

test('a request line the journal has no room for stops the run through `failure`, without throwing', async () => {
  // Under a 4 KiB file-size limit: the sent lines fill the open segment. The warehouse is
  // never reached (no batch is due), so the child opens none.
  const r = await runUnderFileLimit(
    4,
    `import pino from 'pino';
     import { LoadStage } from './src/sync/load-stage.ts';
     let told = 0;
     const load = new LoadStage({}, ${JSON.stringify(`${dir.path}/w.duckdb`)}, 'r1', {
       batchItems: 1e9, flushMs: 1e9, log: pino({ level: 'silent' }), onJournalFailure: () => told++,
     });
     let sent = 0;
     let threw = null;
     const send = () => load.sent({ callId: 'c-' + sent, at: '2026-01-01T00:00:01.000Z', method: 'GET',
       endpoint: '/v1/fragrances/' + 'x'.repeat(400), costCents: 1 });
     try {
       for (; sent < 100 && !load.failure; sent++) send();
       for (let more = 0; more < 5; more++) send(); // still full: nothing thrown, told once
     } catch (err) {
       threw = String(err);
     }
     const toldAtOnce = told;
     await new Promise((r) => setImmediate(r));
     console.log(JSON.stringify({ sent, threw, code: load.failure?.code, toldAtOnce, told }));
     process.exit(0);`,
  );
  expect(r.code, r.stderr).toBe(0);
  const out = JSON.parse(r.stdout) as {
    sent: number;
    threw: string | null;
    code?: string;
    toldAtOnce: number;
    told: number;
  };
  expect(out.threw).toBeNull();
  expect(out.code).toBe('DISK_FULL');
  // Told at once (no slot freed meanwhile may let another request leave), and once only.
  // The request whose line failed still leaves: test/api/sent.test.ts halts from there.
  expect(out.toldAtOnce).toBe(1);
  expect(out.told).toBe(1);
  // 4 KiB hold a few lines of about 500 bytes: the failure is seen at once, not lines later.
  expect(out.sent).toBeGreaterThan(3);
  expect(out.sent).toBeLessThan(12);
});
