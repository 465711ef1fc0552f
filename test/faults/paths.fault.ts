import { loadavg } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.ts';
import { fragsyncTimed, usableWarehouse } from '../helpers/paths.ts';
import { uniquePrefix } from '../helpers/tmp.ts';

/**
 * Unwritable paths (issue 14 item 5): a database, export, spool or config path that cannot be
 * created or written gives one line naming the path and exit 2, at once, on every kind of
 * filesystem. Three kinds, none needing root tricks: procfs (/proc/x: no folder can be made
 * there), sysfs (/sys/x: likewise, another filesystem's refusal) and a full location (a
 * fresh folder written under a file-size limit of 0 KiB: every write fails with EFBIG, as a
 * full disk fails with ENOSPC). Each command is killed after 30 s, so a hang fails as a wrong
 * exit code; the time each took is printed with the load average, never asserted.
 */

const figures: string[] = [];
const where = usableWarehouse(() => {
  const load = loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
  console.log(`unwritable paths, exit 2 after (load average ${load}):\n  ${figures.join('\n  ')}`);
});

const noService = ['--base-url', 'http://127.0.0.1:9'];

/** A location of each kind: where paths go, and the file-size limit the command runs under. */
const KINDS = [
  { kind: 'procfs', base: () => '/proc/x', fullKb: undefined },
  { kind: 'sysfs', base: () => '/sys/x', fullKb: undefined },
  { kind: 'full', base: () => join(where.dir, 'full'), fullKb: 0 },
] as const;

/**
 * The full location is the whole process's (a file-size limit binds every file it writes):
 * there a sync's own database is as full as the path tried, and its folder is what it names
 * first (the one line, exit 2, at once, as for the path tried).
 */
const syncNames = (kind: string, at: string) => (kind === 'full' ? where.dir : at);

describe.each(KINDS)('faults: unwritable paths on $kind', ({ kind, base, fullKb }) => {
  async function refused(what: string, args: (at: string) => string[], named: (at: string) => string) {
    const at = base();
    const r = await fragsyncTimed(args(at), fullKb === undefined ? {} : { fileSizeKb: fullKb });
    figures.push(`${kind} ${what}: ${r.ms} ms`);
    expect(r.code, r.stderr).toBe(EXIT.badInput);
    const lines = r.stderr.trim().split('\n');
    expect(lines, r.stderr).toHaveLength(1);
    expect(lines[0]).toContain(`fragsync ${args(at)[0]}: `);
    expect(lines[0]).toContain(named(at));
  }

  it('sync --db', async () => {
    await refused(
      '--db',
      (at) => ['sync', ...noService, '--db', join(at, 'y.duckdb')],
      (at) => at,
    );
  });

  it('export --parquet, and sync with an export folder', async () => {
    await refused(
      'export --parquet',
      (at) => ['export', '--parquet', join(at, 'parquet'), '--db', where.db],
      (at) => at,
    );
    await refused(
      'sync --parquet',
      (at) => ['sync', ...noService, '--db', where.db, '--parquet', join(at, 'parquet')],
      (at) => syncNames(kind, at),
    );
  });

  it('worker and sync --spool-dir', async () => {
    const redis = ['--redis', inject('redisUrl'), '--queue-prefix', uniquePrefix('fault-paths')];
    await refused(
      'worker --spool-dir',
      (at) => ['worker', ...redis, '--spool-dir', join(at, 'spool')],
      (at) => at,
    );
    await refused(
      'sync --spool-dir',
      (at) => ['sync', ...noService, '--db', where.db, ...redis, '--spool-dir', join(at, 'spool')],
      (at) => syncNames(kind, at),
    );
  });

  it('--config', async () => {
    await refused(
      '--config',
      (at) => ['sync', ...noService, '--db', where.db, '--config', join(at, 'fragsync.json')],
      (at) => join(at, 'fragsync.json'),
    );
  });
});
