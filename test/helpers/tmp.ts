import { afterAll, beforeAll } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';

/** A fresh folder per test file; each integration test gets its own DuckDB file in it. */
export async function tempDir(
  prefix = 'fragsync-test-',
): Promise<{ path: string; cleanup(): Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  return { path, cleanup: () => rm(path, { recursive: true, force: true }) };
}

/** A queue/key prefix unique to one test, so tests never see each other's Redis keys. */
export function uniquePrefix(name: string): string {
  return `fstest-${name}-${randomUUID().slice(0, 8)}`;
}

/**
 * The folder of one test file, made before its tests and removed after them: registers
 * vitest's hooks, so call it at the top of a file. `path` is readable inside tests.
 */
export function fileTempDir(prefix?: string): { readonly path: string } {
  let dir: { path: string; cleanup(): Promise<void> } | null = null;
  beforeAll(async () => {
    dir = await tempDir(prefix);
  });
  afterAll(() => dir?.cleanup());
  return {
    get path() {
      if (!dir) throw new Error('fileTempDir: read path inside a test, not at import');
      return dir.path;
    },
  };
}
