/**
 * `fragsync sim`: run the local Fragrance Data Service until SIGINT/SIGTERM. The first stdout
 * line is exactly `listening on <url>` so scripts can wait for it and read the address.
 */
import { ConfigError } from '../../errors.ts';
import {
  DEFAULT_KEY,
  startSimulator,
  type InvalidRecordKind,
  type SimilarLists,
  type SimulatorOptions,
  type SimulatorVariant,
} from '../../simulator/index.ts';
import { EXIT } from '../exit-codes.ts';
import { listenError } from '../listen-error.ts';
import type { CommandInput } from '../spec.ts';

type SimFlags = Readonly<Record<string, unknown>>;

/** The simulator's options from the parsed flags (ranges and choices are checked by the parser). */
export function simOptions(o: SimFlags): SimulatorOptions {
  const variant: Partial<SimulatorVariant> = {};
  if (o.idStyle) variant.idStyle = o.idStyle as SimulatorVariant['idStyle'];
  if (o.errorBody) variant.errorBody = o.errorBody as SimulatorVariant['errorBody'];
  if (o.extraFields) variant.extraFields = true;
  if (o.billFailedCalls) variant.billFailedCalls = o.billFailedCalls === 'yes';
  if (o.listOrder) variant.listOrder = o.listOrder as SimulatorVariant['listOrder'];
  if (typeof o.pageCap === 'number') variant.pageCap = o.pageCap;
  if (o.edgeValues) variant.edgeValues = true;
  const keys = typeof o.keys === 'string' ? o.keys.split(',').map((k) => k.trim()) : undefined;
  if (keys && keys.some((k) => k.length === 0))
    throw new ConfigError('--keys must be a comma-separated list of non-empty keys');
  const int = (v: unknown) => (typeof v === 'number' ? v : undefined);
  return {
    port: int(o.port),
    ...(typeof o.host === 'string' ? { host: o.host } : {}),
    fragrances: int(o.fragrances),
    seed: int(o.seed),
    keys,
    daySeconds: int(o.daySeconds),
    dailyQuota: int(o.quota),
    balanceCents: int(o.balanceCents),
    latencyMs: int(o.latencyMs),
    variant,
    ...(o.similarLists ? { changeModel: { similarLists: o.similarLists as SimilarLists } } : {}),
    ...(o.invalidRecord ? { invalidRecord: o.invalidRecord as InvalidRecordKind } : {}),
  };
}

export async function run(input: CommandInput): Promise<number> {
  const opts = simOptions(input.opts);
  // Handlers first: a signal during catalogue generation must still end the process cleanly.
  // Started with an IPC channel (by `fragsync demo`, in a process group of its own so that a
  // Ctrl-C reaches the demo only): the channel closes when that parent ends, however it ends
  // (even SIGKILLed), and the service ends with it rather than outliving it.
  const stopped = new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
    if (process.channel) process.once('disconnect', () => resolve());
  });
  const sim = await startSimulator(opts).catch((err: unknown) => {
    throw listenError(err, opts.host ?? '127.0.0.1', opts.port ?? 0);
  });
  const days = typeof input.opts.days === 'number' ? input.opts.days : 0;
  if (days > 0) sim.advanceDay({ days });
  console.log(`listening on ${sim.url}`);
  const keys = opts.keys ?? [DEFAULT_KEY];
  console.log(`API key${keys.length > 1 ? 's' : ''}: ${keys.join(', ')} (send Authorization: Bearer <key>)`);
  await stopped;
  await sim.close();
  if (process.connected) process.disconnect(); // the channel would keep the process alive
  return EXIT.ok;
}
