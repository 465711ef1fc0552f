import type { Config } from '../config/index.ts';
import type { ExitCode } from './exit-codes.ts';

/**
 * What a command is, as data: help, parser, shell completion and the tests that check
 * docker-compose's commands all read the same table (src/cli/registry.ts).
 */
export interface CommandSpec {
  name: string;
  /** One line, for the command list. */
  summary: string;
  /** A paragraph, for the command's own --help. */
  description: string;
  args?: readonly ArgSpec[];
  /**
   * The config flags this command reads (flag names from src/config/bindings.ts). With any,
   * the command also takes --config FILE and is handed the loaded config.
   */
  config?: readonly string[];
  /** Options of this command alone (not config keys). */
  options?: readonly OptionSpec[];
  /** The exit codes it can return, listed in its --help. */
  exits: readonly ExitCode[];
  /** Lines shown under "Examples:" in its --help. */
  examples?: readonly string[];
  /** Loaded when the command runs: `fragsync sim` never pays for DuckDB or BullMQ. */
  load(): Promise<CommandModule>;
}

export interface ArgSpec {
  name: string;
  help: string;
  required?: boolean;
}

export interface OptionSpec {
  /** Commander's flag syntax: '--format <FORMAT>', '-f, --file <FILE>', '--json'. */
  flags: string;
  help: string;
  /** The value must be one of these. */
  choices?: readonly string[];
  /** The value is an integer of at least `min` (converted to a number). */
  int?: { min: number };
  default?: string | number | boolean;
}

export interface CommandInput {
  /** Positional arguments, in the order of `args`. */
  args: (string | undefined)[];
  /** The command's own options, by camel-cased name (`--max-rows` is `maxRows`). */
  opts: Readonly<Record<string, unknown>>;
  /** The config flags given on the command line, by flag name (`schedule set` stores them). */
  flags?: Readonly<Record<string, string | boolean | undefined>>;
  /** The loaded configuration; null for commands that take no config flags. */
  config: Config | null;
  /** The command table (for commands that describe the program: completion). */
  commands: readonly CommandSpec[];
}

export interface CommandModule {
  run(input: CommandInput): Promise<number>;
}

/** The config of a command that declares config flags (the program always loads it). */
export function configOf(input: CommandInput): Config {
  if (!input.config) throw new Error('this command was declared without config flags');
  return input.config;
}
