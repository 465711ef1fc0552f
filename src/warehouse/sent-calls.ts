import { readFileSync } from 'node:fs';
import { unansweredRow, type ApiCallItem, type SentCall } from '../domain/calls.ts';
import type { LoadEntry } from '../domain/items.ts';

/** The requests journal lines record as sent, and the ledger rows of those answered, by call id. */
export interface CallsSeen {
  sent: Map<string, { runId: string; call: SentCall }>;
  answered: Map<string, { runId: string; call: ApiCallItem }>;
}

/**
 * Read the calls that lines in LoadEntry form name, across files: the journal segments a
 * dead sync left, or a dead worker's spool. A request sent before a flush or a rotation is
 * written again in the file after it, and its answer may be in any later one. A line cut by
 * a kill is skipped: a request's own line is written before its bytes, so a cut one was
 * never sent; a cut answer leaves its request without one.
 */
export function readCalls(paths: readonly string[]): CallsSeen {
  const seen: CallsSeen = { sent: new Map(), answered: new Map() };
  for (const path of paths) {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      continue; // never written to (a segment opens its file on its first line)
    }
    for (const line of text.split('\n')) {
      // Only lines that name a call id matter; skipping the rest unparsed keeps this cheap.
      if (!line.includes('"callId"')) continue;
      let entry: LoadEntry;
      try {
        entry = JSON.parse(line) as LoadEntry;
      } catch {
        continue;
      }
      for (const call of entry.sent ?? []) seen.sent.set(call.callId, { runId: entry.runId, call });
      for (const item of entry.items)
        if (item.kind === 'apiCall' && item.callId !== undefined)
          seen.answered.set(item.callId, { runId: entry.runId, call: item });
    }
  }
  return seen;
}

/**
 * Requests sent and never answered, as ledger rows without an answer (status 0, the
 * endpoint's price: the service had the request and may have billed it, as it does a
 * request whose connection broke).
 */
export function unansweredRows(seen: CallsSeen): { runId: string; call: ApiCallItem }[] {
  const rows: { runId: string; call: ApiCallItem }[] = [];
  for (const [id, { runId, call }] of seen.sent)
    if (!seen.answered.has(id)) rows.push({ runId, call: unansweredRow(call) });
  return rows;
}

/** The unanswered requests of journal segments a dead process left, per run (replayJournal, sync/open-run.ts). */
export function unansweredCalls(paths: readonly string[]): Map<string, ApiCallItem[]> {
  const byRun = new Map<string, ApiCallItem[]>();
  for (const { runId, call } of unansweredRows(readCalls(paths))) {
    const rows = byRun.get(runId) ?? [];
    rows.push(call);
    byRun.set(runId, rows);
  }
  return byRun;
}
