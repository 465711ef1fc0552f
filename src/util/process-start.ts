import { readFileSync } from 'node:fs';

/**
 * When a process started, as Linux tells it: `ticks`, /proc/<pid>/stat's field 22 (starttime,
 * in clock ticks since boot), and `bootId`, /proc/sys/kernel/random/boot_id (a new one at
 * every boot, so ticks from before a reboot are not compared with this boot's). A pid and
 * its start together name one process: a pid the kernel gave again to another process has
 * another start.
 */
export interface ProcessStart {
  ticks: number;
  bootId: string;
}

const readText = (path: string): string | null => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
};

/** This boot's id, or null where /proc is absent (not Linux, or not mounted). */
function bootId(): string | null {
  return readText('/proc/sys/kernel/random/boot_id')?.trim() || null;
}

/** Field 22 of a /proc/<pid>/stat line; its name (field 2) is in parentheses and may hold any. */
export function startTicksOf(stat: string): number | null {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (the state): field 22 is fields[19].
  const ticks = Number(fields[19]);
  return Number.isSafeInteger(ticks) && ticks >= 0 ? ticks : null;
}

/** When `pid` started, or null when /proc cannot say (no /proc, or no such process). */
export function processStart(pid: number): ProcessStart | null {
  const id = bootId();
  const stat = id && readText(`/proc/${pid}/stat`);
  const ticks = stat ? startTicksOf(stat) : null;
  return id && ticks !== null ? { ticks, bootId: id } : null;
}

/**
 * Whether `recorded` (a process's start, recorded while it ran) is still the process `pid`
 * names: false when this boot is another or the pid's process started at another time (the
 * pid was given again); null when /proc cannot tell (absent here, or the pid's entry hidden
 * or gone): decide by the pid alone.
 */
export function sameProcess(pid: number, recorded: ProcessStart): boolean | null {
  const id = bootId();
  if (id === null) return null;
  if (id !== recorded.bootId) return false;
  const stat = readText(`/proc/${pid}/stat`);
  const ticks = stat ? startTicksOf(stat) : null;
  return ticks === null ? null : ticks === recorded.ticks;
}

/** A recorded start read back from a file: both fields of the right types, else null. */
export function asProcessStart(v: unknown): ProcessStart | null {
  const s = v as Partial<ProcessStart> | null | undefined;
  return s && typeof s.ticks === 'number' && typeof s.bootId === 'string' && s.bootId
    ? { ticks: s.ticks, bootId: s.bootId }
    : null;
}
