import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT, EXIT_MEANING, exitMeaning } from '../../src/cli/exit-codes.ts';
import { parseCommandLine } from '../../src/cli/program.ts';
import { COMMANDS } from '../../src/cli/registry.ts';
import { bindingOf } from '../../src/config/index.ts';
import { startSimulator } from '../../src/simulator/index.ts';
import { Warehouse } from '../../src/warehouse/warehouse.ts';
import { closedPort, fragsync, said } from '../helpers/cli.ts';
import { tempDir } from '../helpers/tmp.ts';

/** The long option names a help text lists (lines of its Options section). */
function optionsIn(help: string): string[] {
  const section = help.split(/\nOptions:\n/)[1]?.split(/\n\n/)[0] ?? '';
  return [...section.matchAll(/^ {2}(?:-\w, )?(--[\w-]+)/gm)].map((m) => m[1] as string).sort();
}

/** What the command table says a command takes. */
function declared(name: string): string[] {
  const spec = COMMANDS.find((c) => c.name === name)!;
  const flags = (spec.config ?? []).map((f) => `--${bindingOf(f).flag}`);
  if (spec.config) flags.push('--config');
  for (const o of spec.options ?? []) flags.push(/--[\w-]+/.exec(o.flags)![0]);
  return [...flags, '--help'].sort();
}

let dir: { path: string; cleanup(): Promise<void> };
beforeAll(async () => {
  dir = await tempDir('fragsync-cli-');
});
afterAll(() => dir.cleanup());

describe('help', () => {
  /** `fragsync ...argv` as the binary parses it, in this process: what it printed and its exit. */
  function helpOf(argv: string[]): { out: string; err: string; code: number } {
    let out = '';
    let err = '';
    const inv = parseCommandLine(argv, { out: (t) => (out += t), err: (t) => (err += t) });
    return { out, err, code: inv.kind === 'exit' ? inv.code : -1 };
  }

  it('every command lists only its own options, the same under --help, -h and `help <command>`', () => {
    for (const spec of COMMANDS) {
      const name = spec.name;
      const viaFlag = helpOf([name, '--help']);
      expect(viaFlag.code, name).toBe(EXIT.ok);
      expect(viaFlag.err).toBe('');
      expect(helpOf(['help', name]).out).toBe(viaFlag.out);
      expect(helpOf([name, '-h']).out).toBe(viaFlag.out);
      expect(viaFlag.out).toMatch(new RegExp(`^Usage: fragsync ${name} `));
      expect(optionsIn(viaFlag.out), name).toEqual(declared(name));
      // The exit codes it can return, with their meaning.
      for (const code of spec.exits) expect(viaFlag.out).toContain(`  ${code}  ${exitMeaning(code, name)}`);
    }
    // Commands differ: what one does not use, its help does not offer.
    const help = (name: string) => helpOf([name, '--help']).out.replace(/\s+/g, ' ');
    expect(help('sync')).toMatch(/--max-cents <CENTS> stop the run/);
    expect(help('sync')).toContain('[env FRAGSYNC_MAX_CENTS]');
    expect(help('query')).not.toContain('--max-cents');
    expect(help('worker')).not.toContain('--db');
    expect(help('worker')).not.toContain('--max-cents');
    expect(help('plan')).not.toContain('--redis');
    expect(help('sim')).not.toContain('--config');
    // runs names every cause its column shows, the two a live check gives among them.
    expect(help('runs')).toMatch(/\bdied for one whose process ended without closing it\b/);
    expect(help('runs')).toMatch(/\bunknown for one marked running whose writer lock is another host's\b/);
  });

  it('sim lists the exit codes it uses with what they mean for a service: a signal ends it (0), a busy port is setup (2)', async () => {
    const help = helpOf(['sim', '--help']).out;
    expect(help).toContain('    0  stopped by SIGINT or SIGTERM, the way it ends');
    expect(help).toContain('    2  bad input or setup: a flag, or an address it cannot listen on');
    expect(help).not.toContain('warehouse in use');
    const busy = await startSimulator({ fragrances: 5 });
    try {
      const r = await fragsync(['sim', '--port', String(busy.port), '--fragrances', '5']);
      expect(r.code).toBe(EXIT.badInput);
      expect(r.stderr.trim().split('\n')).toEqual([
        `fragsync sim: cannot listen on 127.0.0.1:${busy.port}: the port is in use (--host, --port)`,
      ]);
    } finally {
      await busy.close();
    }
  });

  it("worker's help does not offer to run without Redis, which it refuses, nor ask it for an address it takes from the run", async () => {
    const [help, bare] = await Promise.all([fragsync(['worker', '--help']), fragsync(['worker'])]);
    expect(bare.code).toBe(EXIT.badInput);
    expect(said(bare)).toEqual([expect.stringMatching(/^fragsync worker: .*redisUrl is required/)]);
    const text = help.stdout.replace(/\s+/g, ' ');
    expect(text).toContain(
      '--redis <URL> Redis shared by syncs and workers (redis://...); a sync without it',
    );
    expect(text).not.toMatch(/without it jobs run in-process/);
    expect(text).toContain("(no default: sync needs it; a worker takes its run's)");
  });

  it('the binary prints the same help for `help query`, `query -h` and `query --help`', async () => {
    const runs = await Promise.all([
      fragsync(['help', 'query']),
      fragsync(['query', '-h']),
      fragsync(['query', '--help']),
    ]);
    for (const r of runs) {
      expect(r.code).toBe(EXIT.ok);
      expect(r.stderr).toBe('');
      expect(r.stdout).toBe(helpOf(['query', '--help']).out);
    }
    expect(optionsIn(runs[0]!.stdout)).toEqual(declared('query'));
  });

  it('the program help lists the commands and every exit code; no command is a usage error (exit 2)', async () => {
    const [root, bare] = await Promise.all([fragsync(['--help']), fragsync([])]);
    expect(root.code).toBe(EXIT.ok);
    for (const c of COMMANDS)
      expect(root.stdout).toMatch(new RegExp(`^  ${c.name}\\b.*${c.summary.slice(0, 20)}`, 'm'));
    for (const code of Object.values(EXIT)) expect(root.stdout).toContain(`  ${code}  ${EXIT_MEANING[code]}`);
    expect(bare.code).toBe(EXIT.badInput);
    expect(bare.stdout).toBe('');
    expect(bare.stderr).toBe(root.stdout);
  });
});

describe('usage errors are one line naming the option, exit 2', () => {
  it.each([
    [
      ['sync', '--max-cent', '5'],
      /^fragsync sync: unknown option '--max-cent' \(did you mean --max-cents\?\); see 'fragsync sync --help'$/,
    ],
    [['query', 'SELECT 1', '--jsn'], /^fragsync query: unknown option '--jsn' \(did you mean --json\?\)/],
    [['worker', '--db', 'x.duckdb'], /^fragsync worker: unknown option '--db'/],
    [['sync', '--db'], /^fragsync sync: option '--db <FILE>' argument missing/],
    [
      ['sim', '--port', 'eighty'],
      /^fragsync sim: option '--port <N>' argument 'eighty' is invalid\. must be an integer >= 0/,
    ],
    [
      ['sim', '--list-order', 'random'],
      /^fragsync sim: option '--list-order <ORDER>' argument 'random' is invalid\. Allowed choices are id, reverse, shuffled/,
    ],
    [
      ['sync', '--max-cents', 'lots'],
      /^fragsync sync: config: budget\.maxCentsPerRun must be a non-negative integer \(from flag --max-cents\)$/,
    ],
    [
      ['plan', '--reserve-percent', '101'],
      /^fragsync plan: config: quota\.reservePercent must be between 0 and 100 \(from flag --reserve-percent\)$/,
    ],
    [
      ['sync', '--reviews', 'some'],
      /^fragsync sync: config: datasets\.reviews must be all, none or newest:N with N >= 1 \(from flag --reviews\)$/,
    ],
    [['query'], /^fragsync query: no SQL in standard input$/],
    [['status', 'now'], /^fragsync status: too many arguments for 'status'/],
    [['snyc'], /^fragsync: unknown command 'snyc' \(did you mean sync\?\)/],
  ])('%j', async (args, line) => {
    const r = await fragsync(args, { FRAGSYNC_API_KEY: 'k' });
    expect(r.code).toBe(EXIT.badInput);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n').filter(Boolean)).toEqual([expect.stringMatching(line)]);
    // Never node's parser wording.
    expect(r.stderr).not.toMatch(/positional argument|ERR_PARSE_ARGS/);
  });
});

describe('connection errors', () => {
  it('an unreachable Redis is one line with the address (password hidden) and what to check, exit 2', async () => {
    const port = await closedPort();
    const url = `redis://:hunter2@127.0.0.1:${port}/0`;
    const env = { FRAGSYNC_API_KEY: 'k' };
    const runs = await Promise.all([
      fragsync(['worker', '--redis', url], env),
      fragsync(
        ['sync', '--redis', url, '--base-url', 'http://127.0.0.1:9', '--db', join(dir.path, 'r.duckdb')],
        env,
      ),
      fragsync(['status', '--redis', url, '--db', join(dir.path, 'none.duckdb')], env),
    ]);
    for (const [i, cmd] of ['worker', 'sync', 'status'].entries()) {
      const r = runs[i]!;
      expect(r.code, r.stderr).toBe(EXIT.badInput);
      expect(said(r)).toEqual([
        `fragsync ${cmd}: REDIS_UNREACHABLE: cannot connect to Redis at redis://:***@127.0.0.1:${port}/0 (connect ECONNREFUSED 127.0.0.1:${port}): check that Redis runs there and that --redis or REDIS_URL names it`,
      ]);
      expect(r.stdout + r.stderr).not.toContain('hunter2');
      expect(r.stderr).not.toContain('Unhandled error event');
      // The line stands alone: no log line of the warehouse the sync opened meanwhile.
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    }
    // The sync opened its warehouse while it connected (commands/sync.ts): given up again,
    // its writer lock released, so the next sync is not refused.
    expect(existsSync(`${join(dir.path, 'r.duckdb')}.lock`)).toBe(false);
    // Nor the warehouse it created for a run that never started (r.duckdb did not exist).
    expect(existsSync(join(dir.path, 'r.duckdb'))).toBe(false);
  });

  it('an unreachable service is one line with its address and what to check, exit 7', async () => {
    const port = await closedPort();
    const config = join(dir.path, 'no-retries.json');
    await writeFile(config, JSON.stringify({ http: { maxRetries: 0 } }));
    const r = await fragsync(
      [
        'sync',
        '--base-url',
        `http://127.0.0.1:${port}`,
        '--db',
        join(dir.path, 'api.duckdb'),
        '--config',
        config,
      ],
      { FRAGSYNC_API_KEY: 'k' },
    );
    expect(r.code).toBe(EXIT.apiUnavailable);
    const lines = said(r).filter((l) => !/^\d{4}-\d\d-\d\dT/.test(l)); // the 10 s progress line
    // Short (it was 300 characters): one parenthesis at most, no request or page repeated.
    expect(lines[0]!.length).toBeLessThan(200);
    expect(lines[0]).not.toMatch(/\(.*\(|page=/);
    expect(lines).toEqual([
      expect.stringMatching(
        new RegExp(
          `^fragsync sync: cannot reach the Fragrance Data Service at http://127\\.0\\.0\\.1:${port}: [^;]*ECONNREFUSED[^;]*; check --base-url and the network$`,
        ),
      ),
    ]);
  });
});

describe('a base URL that is not the service', () => {
  it('lists answered 404 (a base URL ending in /v1): one line, exit 7, and no completed full sync of nothing', async () => {
    const sim = await startSimulator({ fragrances: 20 });
    const dbPath = join(dir.path, 'wrong-prefix.duckdb');
    try {
      const r = await fragsync(['sync', '--base-url', `${sim.url}/v1`, '--db', dbPath], {
        FRAGSYNC_API_KEY: 'sim-key',
      });
      // Before: exit 8, 'completed', cost ratio 0.000 and the four lists in quarantine.
      expect(r.code, r.stderr).toBe(EXIT.apiUnavailable);
      // The service answered: a wrong URL, not an unreachable one.
      expect(said(r).filter((l) => !/^\d{4}-\d\d-\d\dT/.test(l))).toEqual([
        `fragsync sync: ${sim.url}/v1 is not the Fragrance Data Service's base URL: its lists answered 404; drop the trailing /v1`,
      ]);
      const wh = await Warehouse.open(dbPath, { readOnly: true });
      const runs = await wh.query<{ status: string }>('SELECT status FROM sync_runs');
      await wh.close();
      expect(runs.map((x) => x.status)).toEqual(['failed']);
    } finally {
      await sim.close();
    }
  });
});

describe('shell completion', () => {
  it('bash: a script bash accepts, with every command and each command’s options', async () => {
    const r = await fragsync(['completion', 'bash']);
    expect(r.code).toBe(EXIT.ok);
    execFileSync('bash', ['-n'], { input: r.stdout });
    for (const c of COMMANDS) expect(r.stdout).toMatch(new RegExp(`^ {4}${c.name}\\)$`, 'm'));
    const syncLine = r.stdout
      .split('\n')
      .find((l, i, all) => all[i - 1]?.trim() === 'sync)' || l.includes('--max-cents'));
    expect(syncLine).toContain('--max-cents');
    // Completion in a real bash: `fragsync sy<TAB>` and `fragsync query --fo<TAB>`.
    const complete = (words: string[]) =>
      execFileSync('bash', [
        '--norc',
        '-c',
        `${r.stdout}\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _fragsync; echo "\${COMPREPLY[*]}"`,
      ])
        .toString()
        .trim();
    expect(complete(['fragsync', 'sy'])).toBe('sync');
    expect(complete(['fragsync', 'sync', '--max-cents-p'])).toBe('--max-cents-per-day');
    expect(complete(['fragsync', 'sim', '--list-order', 'r'])).toBe('reverse');
    // status and plan print JSON for scripts (docs/cli.md "Machine output").
    expect(complete(['fragsync', 'status', '--js'])).toBe('--json');
    expect(complete(['fragsync', 'plan', '--js'])).toBe('--json');
  });

  it('an unknown shell is one line, exit 2', async () => {
    const r = await fragsync(['completion', 'fish']);
    expect(r.code).toBe(EXIT.badInput);
    expect(r.stderr).toBe("fragsync completion: unknown shell 'fish': bash or zsh\n");
  });
});
