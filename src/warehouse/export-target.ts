import { readdirSync, realpathSync, statSync, type Stats } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError } from '../errors.ts';
import { checkCreatableDir } from '../util/writable-dir.ts';
import { EXPORTED_TABLES } from './contract.ts';

/** The files an export writes: a folder holding nothing else is one it may replace. */
export const EXPORT_FILES: ReadonlySet<string> = new Set(EXPORTED_TABLES.map((t) => `${t}.parquet`));

/** The export's folder cannot be used as it is: the user's input (exit 2), not a warehouse fault. */
export class ExportTargetError extends ConfigError {
  constructor(message: string, dir: string) {
    super(`Parquet export folder ${message}`, { dir });
  }
}

/**
 * The folder an export may be written to, resolved (through a symlink, to the folder it
 * names), or an ExportTargetError saying why not: it exists and is not a folder, or it holds
 * an entry an export does not write. It may be new, empty, or an earlier export. Reads only,
 * synchronously and with no import beyond node:fs, so `sync` can ask it before it spends
 * anything (sync/paths.ts): a run that fetched for hours must not fail at its export.
 */
export function checkExportTarget(dir: string): string {
  const target = resolve(dir);
  let found: Stats | undefined;
  try {
    found = statSync(target, { throwIfNoEntry: false });
  } catch (err) {
    // ENOTDIR: a file further up the path is in the way; the walk up names it.
    checkCreatableDir(target, 'Parquet export folder');
    throw new ExportTargetError(`${target} cannot be read (${(err as NodeJS.ErrnoException).code})`, target);
  }
  if (found === undefined) return target;
  if (!found.isDirectory()) throw new ExportTargetError(`${target} exists and is not a folder`, target);
  const real = realpathSync(target);
  const foreign = readdirSync(real)
    .filter((name) => !EXPORT_FILES.has(name))
    .sort();
  if (foreign.length === 0) return real;
  const shown = foreign.slice(0, 3).map((n) => `'${n}'`);
  const more = foreign.length > 3 ? ` and ${foreign.length - 3} more` : '';
  throw new ExportTargetError(
    `${real} holds files an export does not write (${shown.join(', ')}${more}); export into a new or empty folder, or one an earlier export wrote`,
    real,
  );
}
