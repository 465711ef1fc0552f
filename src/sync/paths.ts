import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { Config } from '../config/index.ts';
import { ensureWritableDir } from '../util/writable-dir.ts';
import { checkExportTarget } from '../warehouse/export-target.ts';

/**
 * This host's spool folder for the queue prefix (queue.spoolDir, else the user's state
 * folder): worker processes of one prefix on one host share it, so a restarted one finds
 * what a killed one left.
 */
export function spoolFolder(config: Config): string {
  const state = process.env.XDG_STATE_HOME || join(homedir(), '.local', 'state');
  return join(config.queue.spoolDir ?? join(state, 'fragsync', 'spool'), config.queue.prefix);
}

/**
 * Every folder a sync will write, tried before anything else happens: a run that fetched for
 * hours must not fail at its export, and an unusable path fails within a second, naming
 * itself (util/writable-dir.ts). Light on imports on purpose: the sync command calls it
 * before it loads DuckDB, undici and BullMQ.
 */
export function checkPaths(config: Config): void {
  ensureWritableDir(dirname(resolve(config.dbPath)), 'dbPath');
  if (config.export.parquetDir) {
    ensureWritableDir(dirname(resolve(config.export.parquetDir)), 'export.parquetDir');
    checkExportTarget(config.export.parquetDir);
  }
  if (config.redisUrl) ensureWritableDir(spoolFolder(config), 'queue.spoolDir');
}
