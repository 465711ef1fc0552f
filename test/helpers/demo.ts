import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { sleep } from './interrupt.ts';
import { BIN } from './worker-process.ts';

/**
 * `fragsync demo` on a catalogue of `fragrances` (large enough that the run is still going when
 * a signal comes), into `data`; resolved once it is sending (its progress line, every 2 s, has
 * come). `detached`: in a process group of its own, which `process.kill(-pid, sig)` signals
 * whole, as a terminal's Ctrl-C does its foreground group.
 */
export async function startDemo(data: string, opts: { fragrances: number; detached?: boolean }) {
  const child = spawn(
    process.execPath,
    [BIN, 'demo', '--fragrances', String(opts.fragrances), '--data', data],
    {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: opts.detached ?? false,
    },
  );
  const out = { stdout: '', stderr: '' };
  child.stdout.on('data', (d: Buffer) => (out.stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out.stderr += d.toString()));
  const state: { end?: { code: number | null; signal: NodeJS.Signals | null } } = {};
  const exited = new Promise<void>((r) =>
    child.once('exit', (code, signal) => {
      state.end = { code, signal };
      r();
    }),
  );
  while (!/\| calls \d+/.test(out.stderr) && state.end === undefined) await sleep(50);
  expect(state.end, `${out.stdout}\n${out.stderr}`).toBeUndefined();
  const url = /^local Fragrance Data Service: (http:\/\/\S+)/m.exec(out.stdout)![1]!;
  return { child, out, state, exited, url };
}

/** The field of /proc/<pid>/stat after the command name: [state, ppid, ...]; null once gone. */
function stat(pid: number): string[] | null {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return s.slice(s.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** The processes whose parent is `pid` (Linux: /proc). */
export function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .filter((p) => stat(p)?.[1] === String(pid));
}

/** Whether `pid` has ended (gone, or a zombie no one has reaped yet). */
export function ended(pid: number): boolean {
  const s = stat(pid);
  return s === null || s[0] === 'Z' || s[0] === 'X';
}
