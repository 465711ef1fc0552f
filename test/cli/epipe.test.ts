import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.ts';
import { BIN } from '../helpers/worker-process.ts';

/**
 * `fragsync … | head -1`: the reader leaves before fragsync writes. Here the reader's end of
 * the pipe is closed in the same synchronous step that starts the process, long before node
 * has loaded the CLI, so every write meets a closed pipe (EPIPE), as it does behind `head`.
 */
function intoClosedPipe(args: readonly string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe('output into a pipe whose reader went away', () => {
  it.each(['--help', 'worker --help', 'help sync', '--version'])(
    'fragsync %s ends quietly with 0, no EPIPE stack',
    async (line) => {
      const r = await intoClosedPipe(line.split(' '));
      expect(r.stderr).toBe('');
      expect(r.code).toBe(EXIT.ok);
    },
  );

  it("a command's own output (console.log) ends quietly too", async () => {
    const r = await intoClosedPipe(['completion', 'bash']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(EXIT.ok);
  });
});
