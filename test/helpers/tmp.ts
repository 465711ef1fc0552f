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
