import { oneLine } from '../errors.ts';
import { EXIT } from './exit-codes.ts';

/** Subcommands load lazily so that `fragsync sim` does not pay for DuckDB or BullMQ. */
const COMMANDS: Record<
  string,
  { summary: string; load: () => Promise<{ run(argv: string[]): Promise<number> }> }
> = {
  sync: { summary: 'mirror the catalogue into the warehouse', load: () => import('./commands/sync.ts') },
  plan: {
    summary: 'print the calls and cents the next sync would spend (spends nothing)',
    load: () => import('./commands/plan.ts'),
  },
  worker: { summary: 'run a worker process on a shared Redis', load: () => import('./commands/worker.ts') },
  status: {
    summary: 'show quota, budget, pause state and queue depths',
    load: () => import('./commands/status.ts'),
  },
  query: {
    summary: 'run one read-only SQL query on the warehouse',
    load: () => import('./commands/query.ts'),
  },
  export: { summary: 'write the contract tables to Parquet', load: () => import('./commands/export.ts') },
  sim: { summary: 'run the local Fragrance Data Service', load: () => import('./commands/sim.ts') },
  demo: {
    summary: 'start the local service and run a full sync into ./data',
    load: () => import('./commands/demo.ts'),
  },
};

export function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((c) => c.length));
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return [
    'Usage: fragsync <command> [options]',
    '',
    'Commands:',
    ...lines,
    '',
    'Run `fragsync <command> --help` for the options of one command.',
    'The API key is read from the FRAGSYNC_API_KEY environment variable, never from a flag.',
  ].join('\n');
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    console.log(usage());
    return name === undefined ? EXIT.badInput : EXIT.ok;
  }
  if (name === '--version') {
    console.log('fragsync 0.1.0');
    return EXIT.ok;
  }
  const command = COMMANDS[name];
  if (!command) {
    console.error(`fragsync: unknown command '${name}'. Run 'fragsync --help'.`);
    return EXIT.badInput;
  }
  const mod = await command.load();
  return mod.run(rest);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    console.error(`fragsync: ${oneLine(err)}`);
    // A connection the failed command left open must not keep the process waiting.
    process.exit(EXIT.unexpected);
  },
);
