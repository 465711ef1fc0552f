import { readFileSync } from 'node:fs';
import { unansweredRow, type ApiCallItem, type LoadEntry, type SentCall } from '../warehouse/rows.ts';

/**
 * The requests that journal segments say were sent and never answered, per run, as ledger
 * rows without an answer (status 0, the endpoint's price: the service had the request and
 * may have billed it, as it does a request whose connection broke). Read across all the
 * segments a dead process left: a request sent before a flush is journaled again in the
 * segment after it (LoadStage.sent), and its answer may be in any later one.
 */
export function unansweredCalls(paths: readonly string[]): Map<string, ApiCallItem[]> {
  const sent = new Map<string, { runId: string; call: SentCall }>();
  const answered = new Set<string>();
  for (const path of paths) {
    for (const line of readFileSync(path, 'utf8').split('\n')) {
      // Only lines that name a call id matter; skipping the rest unparsed keeps this cheap.
      if (!line.includes('"callId"')) continue;
      let entry: LoadEntry;
      try {
        entry = JSON.parse(line) as LoadEntry;
      } catch {
        continue; // a line cut by the kill (readJournal deals with it when loading)
      }
      for (const call of entry.sent ?? []) sent.set(call.callId, { runId: entry.runId, call });
      for (const item of entry.items)
        if (item.kind === 'apiCall' && item.callId !== undefined) answered.add(item.callId);
    }
  }
  const byRun = new Map<string, ApiCallItem[]>();
  for (const [id, { runId, call }] of sent) {
    if (answered.has(id)) continue;
    const rows = byRun.get(runId) ?? [];
    rows.push(unansweredRow(call));
    byRun.set(runId, rows);
  }
  return byRun;
}
