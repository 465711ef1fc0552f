// `npm run build`: the TypeScript bundled to plain JavaScript in dist/, so the CLI runs without
// tsx. tsx registers module hooks, and Node 20 runs those in a thread of their own per isolate
// (the main one and the loader thread): about 30 MiB of RSS each, and its esbuild keepNames
// setting costs a defineProperty per named closure made (docs/benchmarks.md, session 9).
//
// bin/fragsync.js runs dist/ only while it is built from the sources as they are (bin/built.mjs); otherwise it runs the TypeScript through tsx as before. So a fresh
// clone works without a build, and an edited source is never shadowed by an older build.
//
// Bundles (packages in node_modules stay imports): fragsync.js (src/cli/main.ts), the loader
// thread's loader-thread.js (src/warehouse/thread/worker.ts), and bench-scale-sync.js, the
// process `npm run bench:scale` measures. Written to a new folder, then renamed into place: a
// process starting meanwhile sees the old build or the new one, never half of one.
import { build } from 'esbuild';
import { readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUILD_INFO, DIST } from '../bin/built.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Entries whose source is present: the container image copies no benchmarks (Dockerfile). */
const ENTRIES = Object.fromEntries(
  Object.entries({
    fragsync: 'src/cli/main.ts',
    'loader-thread': 'src/warehouse/thread/worker.ts',
    'bench-scale-sync': 'scripts/bench-scale-sync.ts',
  }).filter(([, source]) => existsSync(join(ROOT, source))),
);

/**
 * A module finds its files (sql/, config/default.json, lua scripts, the bin) relative to its
 * own URL. In a bundle every module's import.meta.url is the bundle's, so each is rewritten to
 * the URL the module's source has, relative to dist/: the same files are found either way.
 */
const sourceUrls = {
  name: 'source-import-meta-url',
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, async ({ path }) => {
      const text = await readFile(path, 'utf8');
      if (!text.includes('import.meta.url')) return undefined;
      const from = relative(join(ROOT, DIST), path).split('\\').join('/');
      const url = `new URL(${JSON.stringify(from)}, import.meta.url).href`;
      return { contents: text.replaceAll('import.meta.url', url), loader: 'ts' };
    });
  },
};

const out = join(ROOT, `${DIST}.new-${process.pid}`);
await rm(out, { recursive: true, force: true });
const result = await build({
  absWorkingDir: ROOT,
  entryPoints: ENTRIES,
  outdir: out,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  // Shared code and each command's modules in chunks of their own: a command loads what it uses.
  splitting: true,
  // src/warehouse/thread/remote.ts starts loader-thread.js instead of the tsx entry.
  define: { FRAGSYNC_BUILD: 'true' },
  plugins: [sourceUrls],
  metafile: true,
  logLevel: 'warning',
});
// What bin/fragsync.js compares before it runs this build: every source file bundled, as it was.
const inputs = {};
for (const file of Object.keys(result.metafile.inputs)) {
  if (file.startsWith('node_modules/')) continue;
  const s = await stat(join(ROOT, file));
  inputs[file] = [s.size, s.mtimeMs];
}
await writeFile(join(out, BUILD_INFO), JSON.stringify({ inputs }));
const old = join(ROOT, `${DIST}.old-${process.pid}`);
await rename(join(ROOT, DIST), old).catch(() => undefined);
await rename(out, join(ROOT, DIST));
await rm(old, { recursive: true, force: true });
console.log(`built ${relative(ROOT, join(ROOT, DIST))}/ from ${Object.keys(inputs).length} source files`);
