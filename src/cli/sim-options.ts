import type { OptionSpec } from './spec.ts';

/**
 * The flags of `fragsync sim` (registry.ts): the simulator's size, clock, account, its legal
 * readings of the spec, and the service's bugs it can play (commands/sim.ts maps them).
 */
export const SIM_OPTIONS: readonly OptionSpec[] = [
  { flags: '--port <N>', help: 'port to listen on (default: a free port)', int: { min: 0 } },
  { flags: '--host <ADDR>', help: 'address to listen on (default 127.0.0.1; 0.0.0.0 in a container)' },
  { flags: '--fragrances <N>', help: 'catalogue size (default 300)', int: { min: 1 } },
  { flags: '--seed <N>', help: 'catalogue seed (default 1)', int: { min: 0 } },
  { flags: '--keys <K1,K2>', help: 'API keys of the one simulated account (default sim-key)' },
  {
    flags: '--day-seconds <N>',
    help: 'compressed clock: one service day lasts N real seconds',
    int: { min: 1 },
  },
  { flags: '--quota <N>', help: 'daily call allowance (default 1000000)', int: { min: 0 } },
  { flags: '--balance-cents <N>', help: 'prepaid balance (default 1000000000)', int: { min: 0 } },
  {
    flags: '--latency-ms <N>',
    help: 'delay before every /v1 answer, as a remote service has (default 0)',
    int: { min: 0 },
  },
  { flags: '--id-style <STYLE>', help: 'fragrance id style (default slug)', choices: ['opaque', 'slug'] },
  {
    flags: '--error-body <KIND>',
    help: 'body of non-429 errors (default json)',
    choices: ['json', 'text'],
  },
  { flags: '--extra-fields', help: 'add unknown fields to every response object' },
  {
    flags: '--bill-failed-calls <yes|no>',
    help: 'bill 4xx/5xx and resets (default yes)',
    choices: ['yes', 'no'],
  },
  {
    flags: '--list-order <ORDER>',
    help: 'order of lists (default id)',
    choices: ['id', 'reverse', 'shuffled'],
  },
  {
    flags: '--page-cap <N>',
    help: 'serve pages of at most N items whatever is asked (pagination.limit says so)',
    int: { min: 1 },
  },
  {
    flags: '--edge-values',
    help: 'the edge reading: popularity scores, empty strings, tied ranks, repeated entries',
  },
  {
    flags: '--days <N>',
    help: 'start N simulated days on: the change model applied N times (POST /_sim/advance-day for more)',
    int: { min: 0 },
  },
  {
    flags: '--similar-lists <MODE>',
    help: "how other fragrances' similar lists take in a day's releases: live (recomputed at every request) or fixed (computed at release or reformulation, then only losing discontinued entries; default fixed)",
    choices: ['live', 'fixed'],
  },
  {
    flags: '--invalid-record <KIND>',
    help: 'serve one fragrance profile the spec does not allow: its year as text, or no name (a bug, not a reading)',
    choices: ['wrong-type', 'missing-key'],
  },
];
