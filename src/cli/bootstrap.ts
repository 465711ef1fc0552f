import { parseArgs } from 'node:util';
import { CONFIG_FLAGS, configHelp, loadConfig, type Config } from '../config/index.ts';
import { ConfigError, oneLine } from '../errors.ts';

/**
 * Shared start of sync, worker and status: parse the common flags, build the config once.
 * Returns the exit code instead when the user asked for help or the input is bad.
 */
export function parseCommand(
  name: string,
  argv: string[],
  description: string,
): { config: Config } | { exit: number } {
  try {
    const { values, positionals } = parseArgs({ args: argv, options: CONFIG_FLAGS, allowPositionals: true });
    if (values.help) {
      console.log(`Usage: fragsync ${name} [options]\n\n${description}\n\n${configHelp()}`);
      return { exit: 0 };
    }
    if (positionals.length > 0) throw new ConfigError(`${name}: unexpected argument '${positionals[0]}'`);
    return {
      config: loadConfig({ flags: values as Record<string, string | boolean | undefined>, env: process.env }),
    };
  } catch (err) {
    console.error(`fragsync ${name}: ${err instanceof ConfigError ? err.message : oneLine(err)}`);
    return { exit: 2 };
  }
}
