// Adds the lock entries of optional platform packages (DuckDB bindings, msgpackr-extract for
// other systems) that `npm install` leaves out when the registry it talks to lacks them.
// Without those entries `npm ci` refuses the lock ("Missing: ... from lock file"). Run it
// after any change of the lock: `npm run lock:platforms`.
import { readFileSync, writeFileSync } from 'node:fs';

const path = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(path, 'utf8'));
const pkgs = lock.packages;
const added = [];
for (const meta of Object.values(pkgs)) {
  for (const [dep, version] of Object.entries(meta.optionalDependencies ?? {})) {
    const key = `node_modules/${dep}`;
    if (pkgs[key]) continue;
    const name = dep.split('/').pop();
    const entry = { version, optional: true };
    const cpu = ['arm64', 'x64', 'arm', 'ia32'].find(
      (c) => name.endsWith(`-${c}`) || name.includes(`-${c}-`),
    );
    const os = ['darwin', 'linux', 'win32', 'freebsd'].find((o) => name.includes(o));
    if (cpu) entry.cpu = [cpu];
    if (os) entry.os = [os];
    if (name.includes('musl')) entry.libc = ['musl'];
    pkgs[key] = entry;
    added.push(dep);
  }
}
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
console.log(added.length ? `added ${added.join(', ')}` : 'lock already complete');
