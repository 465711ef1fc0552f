import { loadConfig, type Config } from '../config/index.ts';
import { ConfigError, oneLine } from '../errors.ts';
import { EXIT } from './exit-codes.ts';
// First: stdout's EPIPE handler, so output piped into `head` ends quietly (output/write.ts).
import './output/write.ts';
import { parseCommandLine } from './program.ts';
import { COMMANDS } from './registry.ts';

/**
 * The fragsync binary: parse (program.ts), load the config of commands that read one, run the
 * command's module (loaded only now), and turn what escapes into one line and an exit code.
 */
async function main(argv: string[]): Promise<number> {
  const inv = parseCommandLine(argv);
  if (inv.kind === 'exit') return inv.code;
  const who = `fragsync ${inv.spec.name}`;
  let config: Config | null = null;
  if (inv.spec.config) {
    try {
      config = loadConfig({ flags: inv.flags, env: process.env });
    } catch (err) {
      console.error(`${who}: ${err instanceof ConfigError ? err.message : oneLine(err)}`);
      return EXIT.badInput;
    }
  }
  const mod = await inv.spec.load();
  try {
    return await mod.run({ args: inv.args, opts: inv.opts, flags: inv.flags, config, commands: COMMANDS });
  } catch (err) {
    console.error(`${who}: ${err instanceof ConfigError ? err.message : oneLine(err)}`);
    return err instanceof ConfigError ? EXIT.badInput : EXIT.unexpected;
  }
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
