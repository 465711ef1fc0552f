// Whether dist/ (scripts/build.mjs, `npm run build`) holds a build of the sources as they are
// now: bin/fragsync.js and `npm run bench:scale` run it then, and the TypeScript through tsx
// otherwise (no build yet, or a source file edited, added to an import or removed since).
// Costs a stat of each bundled source file, about 250: a millisecond or two.
import { readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const DIST = 'dist';
/** The build's record of its inputs: source path -> [size, mtimeMs] as they were bundled. */
export const BUILD_INFO = 'build.json';

const ROOT = new URL('../', import.meta.url);

/** The path of dist/<file> when the build is there and current, else null (`root`: for tests). */
export function builtFile(file, root = ROOT) {
  let inputs;
  try {
    inputs = JSON.parse(readFileSync(new URL(`${DIST}/${BUILD_INFO}`, root), 'utf8')).inputs;
  } catch {
    return null;
  }
  for (const [path, [size, mtimeMs]] of Object.entries(inputs)) {
    const s = statSync(new URL(path, root), { throwIfNoEntry: false });
    if (!s || s.size !== size || s.mtimeMs !== mtimeMs) return null;
  }
  const built = new URL(`${DIST}/${file}`, root);
  return statSync(built, { throwIfNoEntry: false }) ? fileURLToPath(built) : null;
}
