import { mkdirSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BUILD_INFO, DIST, builtFile } from '../../bin/built.mjs';

/**
 * bin/fragsync.js runs dist/ only while it was built from the sources as they are: an edited,
 * removed or never-built source must send it back to the TypeScript (through tsx).
 */
describe('builtFile: the build is used only while it is current', () => {
  let dir: string;
  let root: URL;
  const source = () => join(dir, 'src', 'a.ts');

  /** A build of src/a.ts as it is now, and its output dist/cli.js. */
  function build(): void {
    mkdirSync(join(dir, DIST), { recursive: true });
    writeFileSync(join(dir, DIST, 'cli.js'), '');
    const s = statSync(source());
    writeFileSync(
      join(dir, DIST, BUILD_INFO),
      JSON.stringify({ inputs: { 'src/a.ts': [s.size, s.mtimeMs] } }),
    );
  }

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'fragsync-built-'));
    root = pathToFileURL(`${dir}/`);
    mkdirSync(join(dir, 'src'));
    writeFileSync(source(), 'export const a = 1;\n');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('no build: null', () => {
    expect(builtFile('cli.js', root)).toBeNull();
  });

  it('a current build: the built file, and null for a file it did not make', () => {
    build();
    expect(builtFile('cli.js', root)).toBe(join(dir, DIST, 'cli.js'));
    expect(builtFile('other.js', root)).toBeNull();
  });

  it('a source edited since (same size, newer time), or of another size: null', () => {
    build();
    const later = new Date(statSync(source()).mtimeMs + 5_000);
    utimesSync(source(), later, later);
    expect(builtFile('cli.js', root)).toBeNull();
    build();
    writeFileSync(source(), 'export const a = 12;\n');
    utimesSync(source(), later, later);
    expect(builtFile('cli.js', root)).toBeNull();
  });

  it('a source removed since: null', () => {
    build();
    rmSync(source());
    expect(builtFile('cli.js', root)).toBeNull();
  });
});
