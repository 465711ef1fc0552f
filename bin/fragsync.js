#!/usr/bin/env node
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
