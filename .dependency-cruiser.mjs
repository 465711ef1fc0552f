/**
 * The import rule (run by `npm run lint`): no cycles, and each folder imports only the
 * folders below it. docs/architecture.md draws the same table as a picture; change both
 * together. Type-only imports count: a type that points upward is a dependency too.
 */

/** Where each room of the house is. */
const ROOMS = {
  cli: '^src/cli/',
  dashboard: '^src/dashboard/',
  sync: '^src/sync/',
  plan: '^src/plan/',
  queue: '^src/queue/',
  jobs: '^jobs/',
  api: '^src/api/',
  governor: '^src/governor/',
  warehouse: '^src/warehouse/',
  simulator: '^src/simulator/',
  config: '^src/config/',
  domain: '^src/domain/',
  errors: '^src/errors\\.ts$',
  util: '^src/util/',
};

const BOTTOM = ['domain', 'errors', 'util'];

/**
 * What each room may import besides itself. Config is read at the top (cli, sync, plan);
 * the stages below get typed settings (JobSettings, GovernorLimits, ClientOptions). The
 * simulator is an independent reading of the spec: nothing of the client, nor its types.
 */
const MAY_IMPORT = {
  cli: Object.keys(ROOMS).filter((r) => r !== 'cli'),
  dashboard: ['queue', 'governor', 'warehouse', ...BOTTOM],
  sync: ['plan', 'queue', 'jobs', 'api', 'governor', 'warehouse', 'config', ...BOTTOM],
  plan: ['warehouse', 'config', ...BOTTOM],
  queue: ['jobs', 'api', 'governor', 'warehouse', ...BOTTOM],
  jobs: ['api', ...BOTTOM],
  api: BOTTOM,
  governor: BOTTOM,
  warehouse: BOTTOM,
  simulator: ['util'],
  config: BOTTOM,
  domain: [],
  errors: [],
  util: ['errors'],
};

const layerRules = Object.entries(MAY_IMPORT).map(([room, allowed]) => ({
  name: `layer-${room}`,
  severity: 'error',
  comment: `${room} may import only ${allowed.length ? allowed.join(', ') : 'itself'} (see .dependency-cruiser.mjs, docs/architecture.md)`,
  from: { path: ROOMS[room] },
  to: { path: '^(src|jobs)/', pathNot: [ROOMS[room], ...allowed.map((r) => ROOMS[r])] },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'an import cycle: move what both sides need into a module below them',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-unplaced',
      severity: 'error',
      comment:
        'a file outside every room of .dependency-cruiser.mjs: give its folder a place in ROOMS and MAY_IMPORT',
      from: { path: '^(src|jobs)/', pathNot: Object.values(ROOMS) },
      to: {},
    },
    ...layerRules,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs', '.json'] },
    // Unchanged files are not parsed again (about 2 s of CPU saved per lint).
    cache: { folder: 'node_modules/.cache/dependency-cruiser', strategy: 'content' },
  },
};
