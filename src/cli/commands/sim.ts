/**
 * `fragsync sim`: run the local Fragrance Data Service until SIGINT/SIGTERM. The first stdout
 * line is exactly `listening on <url>` so scripts can wait for it and read the address.
 */
import { parseArgs } from 'node:util';
import {
  DEFAULT_KEY,
  startSimulator,
  type SimulatorOptions,
  type SimulatorVariant,
} from '../../simulator/index.ts';
import { EXIT } from '../exit-codes.ts';

const USAGE = `Usage: fragsync sim [options]
  --port N                 port to listen on (default: a free port)
  --host ADDR              address to listen on (default 127.0.0.1; 0.0.0.0 in a container)
  --fragrances N           catalogue size (default 300)
  --seed N                 catalogue seed (default 1)
  --keys K1,K2             API keys of the one simulated account (default ${DEFAULT_KEY})
  --day-seconds N          compressed clock: one service day lasts N real seconds
  --quota N                daily call allowance (default 1000000)
  --balance-cents N        prepaid balance (default 1000000000)
  --id-style opaque|slug   fragrance id style (default slug)
  --error-body json|text   body of non-429 errors (default json)
  --extra-fields           add unknown fields to every response object
  --bill-failed-calls yes|no  bill 4xx/5xx and resets (default yes)
  --list-order id|reverse|shuffled  order of lists (default id)`;

class BadFlag extends Error {}

function intFlag(value: string | undefined, name: string, min: number): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < min)
    throw new BadFlag(`--${name} must be an integer >= ${min}`);
  return Number(value);
}

function oneOf<T extends string>(
  value: string | undefined,
  name: string,
  allowed: readonly T[],
): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value))
    throw new BadFlag(`--${name} must be one of ${allowed.join(', ')}`);
  return value as T;
}

export function parseSimArgs(argv: string[]): SimulatorOptions | 'help' {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        help: { type: 'boolean', short: 'h' },
        port: { type: 'string' },
        host: { type: 'string' },
        fragrances: { type: 'string' },
        seed: { type: 'string' },
        keys: { type: 'string' },
        'day-seconds': { type: 'string' },
        quota: { type: 'string' },
        'balance-cents': { type: 'string' },
        'id-style': { type: 'string' },
        'error-body': { type: 'string' },
        'extra-fields': { type: 'boolean' },
        'bill-failed-calls': { type: 'string' },
        'list-order': { type: 'string' },
      },
    }));
  } catch (err) {
    throw new BadFlag(err instanceof Error ? (err.message.split('\n')[0] ?? 'bad flag') : 'bad flag');
  }
  if (values.help) return 'help';
  const variant: Partial<SimulatorVariant> = {};
  const idStyle = oneOf(values['id-style'], 'id-style', ['opaque', 'slug'] as const);
  if (idStyle) variant.idStyle = idStyle;
  const errorBody = oneOf(values['error-body'], 'error-body', ['json', 'text'] as const);
  if (errorBody) variant.errorBody = errorBody;
  if (values['extra-fields']) variant.extraFields = true;
  const bill = oneOf(values['bill-failed-calls'], 'bill-failed-calls', ['yes', 'no'] as const);
  if (bill) variant.billFailedCalls = bill === 'yes';
  const listOrder = oneOf(values['list-order'], 'list-order', ['id', 'reverse', 'shuffled'] as const);
  if (listOrder) variant.listOrder = listOrder;
  const keys = values.keys?.split(',').map((k) => k.trim());
  if (keys && keys.some((k) => k.length === 0))
    throw new BadFlag('--keys must be a comma-separated list of non-empty keys');
  return {
    port: intFlag(values.port, 'port', 0),
    ...(values.host ? { host: values.host } : {}),
    fragrances: intFlag(values.fragrances, 'fragrances', 1),
    seed: intFlag(values.seed, 'seed', 0),
    keys,
    daySeconds: intFlag(values['day-seconds'], 'day-seconds', 1),
    dailyQuota: intFlag(values.quota, 'quota', 0),
    balanceCents: intFlag(values['balance-cents'], 'balance-cents', 0),
    variant,
  };
}

export async function run(argv: string[]): Promise<number> {
  let opts: SimulatorOptions | 'help';
  try {
    opts = parseSimArgs(argv);
  } catch (err) {
    if (!(err instanceof BadFlag)) throw err;
    console.error(`fragsync sim: ${err.message}`);
    return EXIT.badInput;
  }
  if (opts === 'help') {
    console.log(USAGE);
    return EXIT.ok;
  }
  // Handlers first: a signal during catalogue generation must still end the process cleanly.
  const stopped = new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  const sim = await startSimulator(opts);
  console.log(`listening on ${sim.url}`);
  const keys = opts.keys ?? [DEFAULT_KEY];
  console.log(`API key${keys.length > 1 ? 's' : ''}: ${keys.join(', ')} (send Authorization: Bearer <key>)`);
  await stopped;
  await sim.close();
  return EXIT.ok;
}
