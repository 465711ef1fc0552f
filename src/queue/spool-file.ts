import { readdirSync, readFileSync, renameSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { unansweredRow, type ApiCallItem, type SentCall } from '../warehouse/rows.ts';

/** One line of a spool segment: a request sent (`s`) or its ledger row (`a`), of run `r`. */
export type SpoolLine = { r: string; s: SentCall } | { r: string; a: ApiCallItem };

export interface SpoolContent {
  sent: Map<string, { runId: string; call: SentCall }>;
  answered: Map<string, { runId: string; call: ApiCallItem }>;
}

/**
 * What spool segments hold, by call id. A line cut short by a kill is skipped: if it was a
 * request's, the request is unknown (it was not on the wire yet: the line is written before
 * the bytes); if it was an answer's, the request's own line makes it a call without one.
 */
export function readSpool(paths: readonly string[]): SpoolContent {
  const sent: SpoolContent['sent'] = new Map();
  const answered: SpoolContent['answered'] = new Map();
  for (const path of paths) {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      continue; // never written to (a segment opens its file on the first line)
    }
    for (const raw of text.split('\n')) {
      if (raw === '') continue;
      let line: SpoolLine;
      try {
        line = JSON.parse(raw) as SpoolLine;
      } catch {
        continue;
      }
      if ('s' in line) sent.set(line.s.callId, { runId: line.r, call: line.s });
      else if (line.a.callId !== undefined) answered.set(line.a.callId, { runId: line.r, call: line.a });
    }
  }
  return { sent, answered };
}

/** Every call of a dead process's spool as a ledger row: its answer's, or one without an answer. */
export function spoolRows(content: SpoolContent): { runId: string; call: ApiCallItem }[] {
  const rows = [...content.answered.values()];
  for (const [id, { runId, call }] of content.sent)
    if (!content.answered.has(id)) rows.push({ runId, call: unansweredRow(call) });
  return rows;
}

/**
 * A spool's name: this host's name, the pid and a random part. The host matters where one
 * folder is shared by several hosts or containers (a volume mounted by every replica, each
 * with its own pid namespace, so pid 1 in one is not pid 1 in another): a process only ever
 * takes over spools of its own host, where a pid says whether their owner still runs.
 */
export function spoolToken(pid: number, random: string): string {
  return `${encodeURIComponent(hostname())}~${pid}-${random}`;
}

/** Tokens of the spools open in this process. */
export const openSpools = new Set<string>();

/**
 * Segments of spools of this host whose process died (its pid is gone), claimed by renaming
 * them to `<token>-adopted-<name>`: one taker only, and if the taker dies too, the next finds
 * them under its name.
 */
export function claimDeadSpools(dir: string, token: string): { owners: number; paths: string[] } {
  const host = `${encodeURIComponent(hostname())}~`;
  const owners = new Set<string>();
  const paths: string[] = [];
  for (const name of readdirSync(dir)) {
    const owner = /^([^~]+~)(\d+)-([0-9a-f]+)-/.exec(name);
    if (!owner || owner[1] !== host || !name.endsWith('.jsonl') || owner[0] === `${token}-`) continue;
    if (isAlive(Number(owner[2]), `${owner[1]}${owner[2]}-${owner[3]}`)) continue;
    const claimed = join(dir, `${token}-adopted-${name}`);
    try {
      renameSync(join(dir, name), claimed);
    } catch {
      continue; // another process claimed it first
    }
    owners.add(owner[0]);
    paths.push(claimed);
  }
  return { owners: owners.size, paths };
}

function isAlive(pid: number, token: string): boolean {
  // Our pid: one of this process's spools, or a dead process's whose pid we got again (a
  // restarted container often runs as the same pid).
  if (pid === process.pid) return openSpools.has(token);
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
