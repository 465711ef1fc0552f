import { readdirSync, renameSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

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
