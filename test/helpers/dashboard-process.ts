import { spawn, type ChildProcess } from 'node:child_process';
import { BIN } from './worker-process.ts';

/**
 * `fragsync dashboard <args>` as a real process (give it `--port 0`); resolves with its
 * address once it listens. The caller ends `child`.
 */
export async function spawnDashboard(
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  const child = spawn(process.execPath, [BIN, 'dashboard', ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr?.on('data', (b: Buffer) => (output += b.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`dashboard did not start: ${output}`)), 30_000);
    child.stdout?.on('data', (b: Buffer) => {
      output += b.toString();
      const m = /dashboard on (http:\/\/\S+?)\/ /.exec(output);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.once('exit', (code) => reject(new Error(`dashboard exited ${code}: ${output}`)));
  });
  return { child, url, output: () => output };
}

/** A dashboard page's figures: data-figure name to its raw data-value. */
export function figuresOf(html: string): Record<string, string> {
  return Object.fromEntries(
    [...html.matchAll(/data-figure="([^"]+)" data-value="([^"]*)"/g)].map((m) => [m[1], m[2]]),
  );
}
