// Summarises a V8 .cpuprofile (`node --cpu-prof`) as shares of the thread's busy samples: by
// function (self and subtree), and by file (self). Busy: all samples but "(idle)", so the
// shares of a thread waiting on I/O read as shares of the work it did. Used to find where the
// sync's CPU per call goes (docs/benchmarks.md, "CPU per call").
//
//   node scripts/cpuprofile-summary.mjs <file.cpuprofile> [rows=40] [filter | >filter]
//
// `filter`, a substring of a function's name or file: the callers' chains of the matching
// functions (which stacks lead to them, by samples) instead of the tables; `>filter`: what the
// outermost matching function's time goes to, by callee (inclusive).
import { readFileSync } from 'node:fs';

const [file, rowsArg = '40', filter] = process.argv.slice(2);
if (!file) throw new Error('usage: cpuprofile-summary.mjs <file.cpuprofile> [rows] [filter]');
const rows = Number(rowsArg);
const profile = JSON.parse(readFileSync(file, 'utf8'));

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

// Weighted by the time each sample stands for (timeDeltas: the next sample's delta), in ms,
// so profiles taken at different loads (different effective intervals) compare in time.
const hits = new Map();
profile.samples.forEach((id, i) => {
  const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000;
  hits.set(id, (hits.get(id) ?? 0) + ms);
});

/**
 * A bundle's line read as its source file: esbuild heads each module in dist/ with a
 * `// src/…` comment, so a function of a chunk is named by the module it came from.
 */
const markers = new Map();
function sourceOf(url, line) {
  if (!/\/dist\/[^/]+\.js$/.test(url)) return null;
  if (!markers.has(url)) {
    const heads = [];
    try {
      readFileSync(new URL(url), 'utf8')
        .split('\n')
        .forEach((l, i) => {
          const m = /^\/\/ ((?:src|jobs|scripts)\/\S+\.ts)$/.exec(l);
          if (m) heads.push([i, m[1]]);
        });
    } catch {
      // not readable here (another checkout): the chunk's own name is kept
    }
    markers.set(url, heads);
  }
  let found = null;
  for (const [at, source] of markers.get(url)) if (at <= line) found = source;
  return found;
}
const shortUrl = (url, line = 0) =>
  sourceOf(url, line) ?? url.replace(/^.*\/(node_modules\/)/, '$1').replace(/^.*\/(dist|src|jobs)\//, '$1/');
const label = (n) => {
  const f = n.callFrame;
  return `${f.functionName || '(anonymous)'} ${shortUrl(f.url, f.lineNumber)}:${f.lineNumber + 1}`;
};
const fileOf = (n) => shortUrl(n.callFrame.url, n.callFrame.lineNumber) || `(${n.callFrame.functionName})`;

let busy = 0;
const self = new Map();
const selfFile = new Map();
const subtree = new Map();
const chains = new Map();
/** Each sample charged to the nearest of the project's own frames above it (undici, node and
 * V8 work a function of ours asked for count as its cost); none: to the leaf's file. */
const owner = new Map();
const ownerFile = new Map();
const ours = (n) => /^(dist|src|jobs|scripts)\//.test(shortUrl(n.callFrame.url, n.callFrame.lineNumber));
for (const [id, count] of hits) {
  const n = byId.get(id);
  if (n.callFrame.functionName === '(idle)') continue;
  busy += count;
  const l = label(n);
  self.set(l, (self.get(l) ?? 0) + count);
  selfFile.set(fileOf(n), (selfFile.get(fileOf(n)) ?? 0) + count);
  let own = n;
  while (own && !ours(own)) own = byId.get(parent.get(own.id));
  const o = own ? label(own) : fileOf(n);
  owner.set(o, (owner.get(o) ?? 0) + count);
  const of = own ? fileOf(own) : fileOf(n);
  ownerFile.set(of, (ownerFile.get(of) ?? 0) + count);
  const seen = new Set();
  const stack = [];
  for (let at = id; at !== undefined; at = parent.get(at)) {
    const s = label(byId.get(at));
    stack.push(byId.get(at).callFrame.functionName || '(anon)');
    if (seen.has(s)) continue;
    seen.add(s);
    subtree.set(s, (subtree.get(s) ?? 0) + count);
  }
  if (filter?.startsWith('>')) {
    // What the outermost frame matching the filter spends its time in: its callees, inclusive.
    const path = [];
    for (let at = id; at !== undefined; at = parent.get(at)) path.push(byId.get(at));
    const i = path.findLastIndex((p) => label(p).includes(filter.slice(1)));
    if (i >= 0) {
      const callee = i === 0 ? '(self)' : label(path[i - 1]);
      chains.set(callee, (chains.get(callee) ?? 0) + count);
    }
  } else if (filter && [...seen].some((s) => s.includes(filter))) {
    const from = stack.findIndex((s, i) => label(byId.get(nthUp(id, i))).includes(filter));
    const chain = stack.slice(from, from + 8).join(' < ');
    chains.set(chain, (chains.get(chain) ?? 0) + count);
  }
}

function nthUp(id, i) {
  let at = id;
  for (let k = 0; k < i; k++) at = parent.get(at);
  return at;
}

const pct = (v) => `${((100 * v) / busy).toFixed(1).padStart(5)}% ${(v / 1000).toFixed(2).padStart(6)} s`;
const top = (m) => [...m].sort((a, b) => b[1] - a[1]).slice(0, rows);
const seconds = (profile.endTime - profile.startTime) / 1e6;
console.log(`${file}: ${(busy / 1000).toFixed(2)} s busy of ${seconds.toFixed(1)} s profiled`);
if (filter) {
  for (const [c, v] of top(chains)) console.log(`${pct(v)}  ${c}`);
} else {
  console.log('\n-- self, by function');
  for (const [l, v] of top(self)) console.log(`${pct(v)}  ${l}`);
  console.log('\n-- self, by file');
  for (const [l, v] of top(selfFile)) console.log(`${pct(v)}  ${l}`);
  console.log('\n-- by owner: the nearest own function on the stack');
  for (const [l, v] of top(owner)) console.log(`${pct(v)}  ${l}`);
  console.log('\n-- by owner, by file');
  for (const [l, v] of top(ownerFile)) console.log(`${pct(v)}  ${l}`);
  console.log('\n-- subtree (inclusive), by function');
  for (const [l, v] of top(subtree)) console.log(`${pct(v)}  ${l}`);
}
