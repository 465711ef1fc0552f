import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.ts';
import { checkCreatableDir, ensureWritableDir } from '../../src/util/writable-dir.ts';
import { tempDir } from '../helpers/tmp.ts';

let dir: { path: string; cleanup(): Promise<void> };
beforeAll(async () => {
  dir = await tempDir();
});
afterAll(async () => {
  await dir.cleanup();
});

/**
 * The error ensureWritableDir throws for `path`. A hang (recursive mkdir spinning under
 * /proc) never returns here at all, so no clock is read: a time bound would only fail a
 * run whose process the machine's load held up.
 */
function failure(path: string): ConfigError {
  try {
    ensureWritableDir(path, 'dbPath');
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error(`${path} was accepted`);
}

describe('ensureWritableDir', () => {
  it('creates every missing level and leaves no probe file behind', () => {
    const deep = join(dir.path, 'a', 'b', 'c');
    expect(ensureWritableDir(deep, 'dbPath')).toBe(deep);
    expect(statSync(deep).isDirectory()).toBe(true);
    expect(readdirSync(deep)).toEqual([]);
    // An existing folder is fine as it is.
    expect(ensureWritableDir(deep, 'dbPath')).toBe(deep);
  });

  it('a folder under /proc (where recursive mkdir spins forever) fails at once, naming the folder', () => {
    const err = failure('/proc/fragsync-no/such');
    expect(err.message).toBe('cannot use /proc/fragsync-no (dbPath): cannot create the folder (ENOENT)');
  });

  it('a folder where files cannot be created fails on a real create, not on access(2)', () => {
    // As root, access(2) says /proc is writable; creating a file there fails.
    expect(failure('/proc').message).toMatch(
      /^cannot use \/proc \(dbPath\): cannot create files in it \(E[A-Z]+\)$/,
    );
  });

  it('a file in the way fails naming the file', () => {
    const file = join(dir.path, 'plain-file');
    writeFileSync(file, 'x');
    expect(failure(join(file, 'sub')).message).toBe(
      `cannot use ${file} (dbPath): it is a file, not a folder`,
    );
    expect(existsSync(join(file, 'sub'))).toBe(false);
  });
});

describe('checkCreatableDir (for commands that only read)', () => {
  it('accepts a folder a sync could create, and creates nothing', () => {
    const deep = join(dir.path, 'not', 'yet');
    checkCreatableDir(deep, 'dbPath');
    expect(existsSync(join(dir.path, 'not'))).toBe(false);
    // Nor leaves its probe file in the folder it tried.
    expect(readdirSync(dir.path).filter((f) => f.startsWith('.fragsync-probe'))).toEqual([]);
  });

  it('refuses what ensureWritableDir refuses, with the same line', () => {
    const file = join(dir.path, 'another-file');
    writeFileSync(file, 'x');
    for (const path of ['/proc/fragsync-no/such', '/proc', join(file, 'sub')]) {
      let err: unknown = null;
      try {
        checkCreatableDir(path, 'dbPath');
      } catch (e) {
        err = e;
      }
      expect(err, path).toBeInstanceOf(ConfigError);
      expect((err as Error).message).toBe(failure(path).message);
    }
  });
});
