import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { simOptions } from '../../src/cli/commands/sim.ts';
import { parseCommandLine } from '../../src/cli/program.ts';
import { EXIT } from '../../src/cli/exit-codes.ts';

const BIN = new URL('../../bin/fragsync.js', import.meta.url).pathname;

/** `fragsync sim ...argv` parsed as the binary does; 'help' when it asked for help, throws when refused. */
function parseSimArgs(argv: string[]): ReturnType<typeof simOptions> | 'help' {
  let said = '';
  const inv = parseCommandLine(['sim', ...argv], { out: () => undefined, err: (t) => (said += t) });
  if (inv.kind === 'exit') {
    if (inv.code === EXIT.ok) return 'help';
    throw new Error(said);
  }
  return simOptions(inv.opts);
}

describe('fragsync sim flags', () => {
  it('maps every flag to a simulator option', () => {
    expect(
      parseSimArgs([
        '--port=0',
        '--fragrances',
        '500',
        '--seed',
        '3',
        '--keys',
        'a,b',
        '--day-seconds',
        '60',
        '--quota',
        '50',
        '--balance-cents',
        '1000',
        '--latency-ms',
        '20',
        '--id-style',
        'opaque',
        '--error-body',
        'text',
        '--extra-fields',
        '--bill-failed-calls',
        'no',
        '--list-order',
        'shuffled',
        '--page-cap',
        '7',
        '--edge-values',
        '--similar-lists',
        'fixed',
        '--invalid-record',
        'missing-key',
      ]),
    ).toEqual({
      port: 0,
      fragrances: 500,
      seed: 3,
      keys: ['a', 'b'],
      daySeconds: 60,
      dailyQuota: 50,
      balanceCents: 1000,
      latencyMs: 20,
      variant: {
        idStyle: 'opaque',
        errorBody: 'text',
        extraFields: true,
        billFailedCalls: false,
        listOrder: 'shuffled',
        pageCap: 7,
        edgeValues: true,
      },
      changeModel: { similarLists: 'fixed' },
      invalidRecord: 'missing-key',
    });
    expect(parseSimArgs(['--help'])).toBe('help');
  });

  it.each([
    ['--fragrances', 'many'],
    ['--list-order', 'random'],
    ['--page-cap', '0'],
    ['--invalid-record', 'wrong'],
    ['--similar-lists', 'weekly'],
    ['--nope'],
    ['--days', '-1'],
    ['--keys', 'a,,b'],
    ['extra'],
  ])('rejects %s', (...argv) => {
    expect(() => parseSimArgs(argv)).toThrow();
  });
});

describe('fragsync sim process', () => {
  it('prints the address first, serves N days on with --days, and exits 0 on SIGTERM', async () => {
    const argv = [BIN, 'sim', '--fragrances', '30', '--keys', 'k1,k2', '--days', '2'];
    const child = spawn(process.execPath, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
    const first = (await lines.next()).value as string;
    expect(first).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+$/);
    expect((await lines.next()).value).toContain('k1, k2');
    const url = first.slice('listening on '.length);
    const res = await fetch(`${url}/v1/accords`, { headers: { authorization: 'Bearer k2' } });
    expect(res.status).toBe(200);
    expect(((await (await fetch(`${url}/_sim/clock`)).json()) as { day: number }).day).toBe(2);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(EXIT.ok);
  });

  it('a bad flag is one line on stderr and exit code badInput', async () => {
    const child = spawn(process.execPath, [BIN, 'sim', '--id-style', 'uuid'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    expect(code).toBe(EXIT.badInput);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toContain('--id-style');
  });
});
