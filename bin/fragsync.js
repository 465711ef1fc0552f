#!/usr/bin/env -S MALLOC_ARENA_MAX=2 node --max-old-space-size=512
// MALLOC_ARENA_MAX=2: glibc gives each thread that allocates (the loader thread, libuv's pool
// where DuckDB's queries run, V8's helpers) a malloc arena of its own, up to 8 per core, and
// each keeps what was freed in it: 14-17 arenas held 41-71 MiB at 120k fragrances, two held
// 33 (session 10, docs/benchmarks.md). Set for the process before it starts, so here (env -S),
// in `npm run fragsync`, `npm run demo` and the image, as the heap ceiling below.
// --max-old-space-size: a ceiling on the heap makes V8 collect before it fills with garbage
// (with the default, about 4 GiB, a 20k sync's heap reached 170-190 MiB around a live set of
// 25-50; with 512, 70-90). Also passed by `npm run fragsync`, `npm run demo` and the image (Dockerfile), which
// start node themselves; the loader thread sets its own (src/warehouse/thread/remote.ts).
// The CLI is written in TypeScript. Built (`npm run build`: dist/, which `npm test`, `npm run
// demo` and the benchmarks make first) it runs as plain JavaScript; with no build, or one older
// than the sources, through tsx's loader, so `npx fragsync` works right after `npm ci` and an
// edited file is never shadowed by an older build (bin/built.mjs). FRAGSYNC_NO_BUILD=1 runs
// the TypeScript even so (module hooks that replace a source file, as some tests plant).
import { builtFile } from './built.mjs';

const built = process.env.FRAGSYNC_NO_BUILD === '1' ? null : builtFile('fragsync.js');
if (built) await import(built);
else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/main.ts');
}
