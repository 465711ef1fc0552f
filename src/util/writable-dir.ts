import { randomUUID } from 'node:crypto';
import { closeSync, mkdirSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ConfigError } from '../errors.ts';

const errno = (err: unknown): string => (err as NodeJS.ErrnoException).code ?? 'unusable';

/**
 * Make sure `dir` exists and this process can create files in it, or throw one line naming
 * the path (a ConfigError: the user's setup, exit 2). `what` names the setting or flag,
 * e.g. `dbPath`.
 *
 * Not `mkdir(dir, { recursive: true })`: Node's recursive mkdir loops forever on some
 * filesystems (under /proc, a create answers ENOENT for a parent that exists, and Node
 * retries the parent), holding a libuv thread at full CPU where no signal ends it. This
 * walks up to the nearest folder that exists and creates each missing level once.
 * Writability is tried with a real file, not access(2): as root, or on a read-only or
 * pseudo filesystem, access says yes where a create fails.
 */
export function ensureWritableDir(dir: string, what: string): string {
  const target = resolve(dir);
  const fail = failure(what);
  const { missing } = walkUp(target, fail);
  for (const p of missing) {
    try {
      mkdirSync(p);
    } catch (err) {
      // Another process may have created it meanwhile.
      if (errno(err) === 'EEXIST' && statSync(p, { throwIfNoEntry: false })?.isDirectory()) continue;
      throw fail(p, `cannot create the folder (${errno(err)})`);
    }
  }
  const refused = probeError(target);
  if (refused) throw fail(target, `cannot create files in it (${refused})`);
  return target;
}

/**
 * The same question as ensureWritableDir without creating anything that stays: could `dir`
 * be created and written? The nearest folder that exists is tried with a real file (made and
 * removed at once). For commands that only read (plan), so that a path no sync could use
 * fails the same way there, and a path a first sync would create plans as empty.
 */
export function checkCreatableDir(dir: string, what: string): void {
  const target = resolve(dir);
  const fail = failure(what);
  const { existing, missing } = walkUp(target, fail);
  const refused = probeError(existing);
  if (!refused) return;
  // The first folder that would have to be created is the one named (as ensureWritableDir does).
  const first = missing[0];
  throw first
    ? fail(first, `cannot create the folder (${refused})`)
    : fail(target, `cannot create files in it (${refused})`);
}

function failure(what: string): (path: string, reason: string) => ConfigError {
  return (path, reason) => new ConfigError(`cannot use ${path} (${what}): ${reason}`, { key: what, path });
}

/** The nearest folder of `target` that exists, and the missing ones below it, top first. */
function walkUp(
  target: string,
  fail: (path: string, reason: string) => ConfigError,
): { existing: string; missing: string[] } {
  const missing: string[] = [];
  for (let p = target; ;) {
    let isDir: boolean;
    try {
      isDir = statSync(p).isDirectory();
    } catch (err) {
      // ENOTDIR: a file further up is in the way; the walk up finds and names it.
      if (errno(err) !== 'ENOENT' && errno(err) !== 'ENOTDIR')
        throw fail(p, `cannot read it (${errno(err)})`);
      const parent = dirname(p);
      if (parent === p) throw fail(p, 'no such filesystem root');
      missing.unshift(p);
      p = parent;
      continue;
    }
    if (!isDir) throw fail(p, 'it is a file, not a folder');
    return { existing: p, missing };
  }
}

/**
 * Why no file can be created and written in `dir` (tried for real, then removed), or null if
 * one can. One byte is written: on a full disk (ENOSPC) or past a file-size limit (EFBIG) an
 * empty file is still created, and the first write the program makes there would fail with
 * an error naming no path.
 */
function probeError(dir: string): string | null {
  const probe = join(dir, `.fragsync-probe-${process.pid}-${randomUUID().slice(0, 8)}`);
  let fd: number;
  try {
    fd = openSync(probe, 'wx');
  } catch (err) {
    return errno(err);
  }
  try {
    writeSync(fd, 'x');
    return null;
  } catch (err) {
    return errno(err);
  } finally {
    closeSync(fd);
    rmSync(probe, { force: true });
  }
}
