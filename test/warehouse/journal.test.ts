import { readdirSync } from 'node:fs';
import { appendFile, writeFile } from 'node:fs/promises';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { Journal, readJournal, sentOnlyRun } from '../../src/warehouse/journal.ts';
import type { LoadEntry } from '../../src/domain/items.ts';
import { tempDir } from '../helpers/tmp.ts';
import { profile } from './fixtures.ts';

let dir: { path: string; cleanup(): Promise<void> };
beforeEach(async () => {
  dir = await tempDir('fragsync-journal-');
});
afterEach(() => dir.cleanup());

const entry = (runId: string, id: string): string =>
  JSON.stringify({
    runId,
    items: [profile(id)],
    progress: [{ kind: 'fetched', entity: 'fragrance', key: id, dataset: 'profile' }],
  } satisfies LoadEntry);

test('a sealed segment is what the loader reads; appends after the seal go to a new segment', () => {
  const journal = new Journal(`${dir.path}/w.duckdb`);
  expect(journal.seal()).toBeNull(); // nothing appended: no segment, no file
  journal.append(entry('r1', 'a'));
  journal.append(entry('r1', 'b'));
  const sealed = journal.seal()!;
  journal.append(entry('r1', 'c'));
  const [batch] = readJournal(sealed.path);
  expect(batch!.items.map((i) => (i as { id: string }).id)).toEqual(['a', 'b']);
  expect(batch!.progress).toHaveLength(2);
  journal.discard(sealed.id);
  journal.close();
  // The open segment (c) is what a dead process leaves: the next start finds it.
  const left = journal.leftovers();
  expect(left).toHaveLength(1);
  expect(left[0]!.id).not.toBe(sealed.id);
  expect(readJournal(left[0]!.path)[0]!.items).toHaveLength(1);
  journal.removeLeftover(left[0]!.id);
  expect(readdirSync(dir.path)).toEqual([]);
});

test('a line cut by a kill is dropped; a corrupt line inside is quarantined; runs stay apart', async () => {
  const path = `${dir.path}/w.duckdb.journal-x.jsonl`;
  await writeFile(path, `${entry('r1', 'a')}\n{"runId":"r1","items":[oops\n${entry('r2', 'b')}\n`);
  await appendFile(path, entry('r2', 'c').slice(0, 40)); // the write a SIGKILL cut short
  const batches = readJournal(path);
  expect(batches.map((b) => b.runId)).toEqual(['r1', 'r2']);
  expect(batches[0]!.items.map((i) => i.kind)).toEqual(['fragrance']);
  const r2 = batches[1]!.items;
  expect(r2.map((i) => i.kind)).toEqual(['fragrance', 'quarantine']);
  expect(r2[1]).toMatchObject({ endpoint: 'journal', raw: '{"runId":"r1","items":[oops' });
});

test('request lines are read without parsing: their run counts, nothing of them loads', () => {
  const sent = (runId: string): string =>
    JSON.stringify({
      runId,
      items: [],
      progress: [],
      sent: [
        { callId: 'p-1', at: '2026-01-01T00:00:00.000Z', method: 'GET', endpoint: '/v1/x', costCents: 1 },
      ],
    } satisfies LoadEntry);
  expect(sentOnlyRun(sent('r1'))).toBe('r1');
  expect(sentOnlyRun(sent('r"2'))).toBeNull(); // an escaped run id is parsed instead
  expect(sentOnlyRun(entry('r1', 'a'))).toBeNull();
  expect(sentOnlyRun(sent('r1').slice(0, -3))).toBeNull(); // cut short
  const journal = new Journal(`${dir.path}/w.duckdb`);
  journal.append([sent('r1'), entry('r1', 'a'), sent('r"2')]);
  const batches = readJournal(journal.seal()!.path);
  journal.close();
  // A segment's last batch carries its journal mark: a run seen only in request lines has one.
  expect(batches.map((b) => [b.runId, b.items.length])).toEqual([
    ['r1', 1],
    ['r"2', 0],
  ]);
});

test('lines beyond ASCII read as written, beside ASCII lines, and a kill cutting a character is dropped', async () => {
  const path = `${dir.path}/w.duckdb.journal-y.jsonl`;
  const wide = entry('r1', 'maison-été/雨-🍂');
  await writeFile(path, `${entry('r1', 'a')}\n${wide}\n${entry('r1', 'b')}\n`);
  // The write a SIGKILL cut short, inside the four bytes of the emoji in its last key.
  const cut = Buffer.byteLength(wide) - Buffer.byteLength('","dataset":"profile"}]}') - 2;
  await appendFile(path, Buffer.from(wide).subarray(0, cut));
  const [batch, ...rest] = readJournal(path);
  expect(rest).toEqual([]);
  expect(batch!.items.map((i) => (i as { id: string }).id)).toEqual(['a', 'maison-été/雨-🍂', 'b']);
  expect(batch!.progress.map((m) => (m as { key: string }).key)).toEqual(['a', 'maison-été/雨-🍂', 'b']);
});
