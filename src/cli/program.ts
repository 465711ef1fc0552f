import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { BINDINGS, CONFIG_FILE_FLAG, SECRET_ENV, bindingOf, type Binding } from '../config/index.ts';
import { EXIT, exitMeaning, type ExitCode } from './exit-codes.ts';
import { write } from './output/write.ts';
import { COMMANDS } from './registry.ts';
import type { CommandSpec, OptionSpec } from './spec.ts';

/**
 * The fragsync command line, built with commander from the command table (registry.ts) and
 * the config bindings: each command's --help lists only its own options, a wrong flag or
 * value is one line naming it, and `help <command>` works. Commander was chosen over
 * node:util parseArgs (no per-command help, raw error messages), yargs (heavier, its own
 * config and env layer that would compete with src/config) and oclif (a framework with a
 * plugin system and a build step): it parses and prints help, nothing more, with no
 * dependencies.
 */

export const VERSION = '0.1.0';

/** What parsing decided: run `spec` with these values, or stop with `exit`. */
export type Invocation =
  | {
      kind: 'run';
      spec: CommandSpec;
      args: (string | undefined)[];
      opts: Record<string, unknown>;
      /** Config flags given on the command line, by flag name, for loadConfig. */
      flags: Record<string, string | boolean | undefined>;
    }
  | { kind: 'exit'; code: ExitCode };

export interface Output {
  out(text: string): void;
  err(text: string): void;
}

const STDIO: Output = {
  // Help piped into `head` ends quietly, as every command's output does.
  out: (t) => void write(t),
  err: (t) => process.stderr.write(t),
};

/**
 * Parses argv (without node and the script). Help and usage errors are written here; a
 * usage error is one line: `fragsync <command>: <what is wrong>; see 'fragsync <command> --help'`.
 */
export function parseCommandLine(argv: readonly string[], io: Output = STDIO): Invocation {
  let chosen: Invocation | null = null;
  const program = buildProgram(io, (inv) => {
    chosen = inv;
  });
  try {
    program.parse(argv as string[], { from: 'user' });
  } catch (err) {
    if (!(err instanceof CommanderError)) throw err;
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version')
      return { kind: 'exit', code: EXIT.ok };
    // `help <command>` (exit code 0), or `fragsync` alone: the help went to stderr as the usage.
    if (err.code === 'commander.help')
      return { kind: 'exit', code: err.exitCode === 0 ? EXIT.ok : EXIT.badInput };
    io.err(`${usageError(argv, err.message)}\n`);
    return { kind: 'exit', code: EXIT.badInput };
  }
  return chosen ?? { kind: 'exit', code: EXIT.badInput };
}

function usageError(argv: readonly string[], message: string): string {
  const spec = COMMANDS.find((c) => c.name === argv[0]);
  const who = spec ? `fragsync ${spec.name}` : 'fragsync';
  const what = message
    .replace(/^error: /, '')
    .replace(/\n\(Did you mean (.*)\?\)/, ' (did you mean $1?)')
    .replace(/\s*\n\s*/g, ' ')
    .trim()
    .replace(/\.$/, '');
  return `${who}: ${what}; see '${who} --help'`;
}

function buildProgram(io: Output, chose: (inv: Invocation) => void): Command {
  const program = new Command('fragsync')
    .description('Mirror the Fragrance Data Service catalogue into a DuckDB warehouse, with Parquet export.')
    .version(VERSION, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show this help')
    .helpCommand('help [command]', 'show the help of a command')
    .exitOverride()
    .showSuggestionAfterError(true)
    .configureOutput({
      writeOut: io.out,
      writeErr: io.err,
      // Errors are reworded into one line by parseCommandLine.
      outputError: () => undefined,
    })
    .addHelpText('after', rootHelpFooter());
  for (const spec of COMMANDS) addCommand(program, spec, chose);
  return program;
}

function addCommand(program: Command, spec: CommandSpec, chose: (inv: Invocation) => void): void {
  // program.command() hands the subcommand the program's error and output settings.
  const cmd = program
    .command(spec.name)
    .summary(spec.summary)
    // Commander wraps paragraphs to the terminal's width itself.
    .description(spec.description.replace(/\s*\n\s*/g, ' '));
  for (const a of spec.args ?? []) cmd.argument(a.required ? `<${a.name}>` : `[${a.name}]`, a.help);
  const bindings = (spec.config ?? []).map(bindingOf);
  for (const b of bindings) cmd.addOption(bindingOption(b));
  if (spec.config)
    cmd.addOption(
      new Option(`--${CONFIG_FILE_FLAG.flag} <${CONFIG_FILE_FLAG.valueName}>`, CONFIG_FILE_FLAG.help),
    );
  for (const o of spec.options ?? []) cmd.addOption(ownOption(o));
  cmd.helpOption('-h, --help', 'show this help');
  cmd.addHelpText('after', commandHelpFooter(spec, bindings));
  cmd.action((...params: unknown[]) => {
    const self = params[params.length - 1] as Command;
    const opts = self.opts();
    const flags: Record<string, string | boolean | undefined> = {};
    for (const b of bindings) {
      const key = bindingOption(b).attributeName();
      if (self.getOptionValueSource(key) !== 'cli') continue;
      // --no-wait stores wait=false; the loader takes the flag as written (see convert()).
      flags[b.flag as string] = b.kind === 'negatedBool' ? true : (opts[key] as string | boolean);
    }
    if (typeof opts.config === 'string') flags.config = opts.config;
    const own: Record<string, unknown> = {};
    for (const o of spec.options ?? []) {
      const key = new Option(o.flags).attributeName();
      own[key] = opts[key];
    }
    chose({ kind: 'run', spec, args: self.processedArgs as (string | undefined)[], opts: own, flags });
  });
}

/** A config flag as a commander option; its help names the variables that set it too. */
function bindingOption(b: Binding): Option {
  const takesValue = b.kind !== 'bool' && b.kind !== 'negatedBool';
  const env = b.env && b.env.length > 0 ? ` [env ${b.env.join(', ')}]` : '';
  return new Option(`--${b.flag}${takesValue ? ` <${b.valueName ?? 'VALUE'}>` : ''}`, `${b.help}${env}`);
}

function ownOption(o: OptionSpec): Option {
  const option = new Option(o.flags, o.help);
  if (o.choices) option.choices(o.choices);
  if (o.int) option.argParser(intParser(o.int.min));
  if (o.default !== undefined) option.default(o.default);
  return option;
}

function intParser(min: number): (value: string) => number {
  return (value) => {
    if (!/^\d+$/.test(value) || Number(value) < min)
      throw new InvalidArgumentError(`must be an integer >= ${min}.`);
    return Number(value);
  };
}

function exitCodesText(codes: readonly ExitCode[], command?: string): string {
  // Right-aligned: 130 beside the one-digit codes.
  return codes.map((c) => `  ${String(c).padStart(3)}  ${exitMeaning(c, command)}`).join('\n');
}

function commandHelpFooter(spec: CommandSpec, bindings: readonly Binding[]): string {
  const parts: string[] = [];
  if (bindings.length > 0 || spec.config)
    parts.push(
      `Values come from defaults < --config FILE < environment < flags (config/README.md).` +
        (spec.config?.includes('base-url') || spec.name === 'worker'
          ? `\nThe API key is read from ${SECRET_ENV.join(', ')} only, never from a flag or a file.`
          : ''),
    );
  if (spec.examples) parts.push(`Examples:\n${spec.examples.map((e) => `  ${e}`).join('\n')}`);
  parts.push(`Exit codes:\n${exitCodesText(spec.exits, spec.name)}`);
  return `\n${parts.join('\n\n')}`;
}

function rootHelpFooter(): string {
  const env = BINDINGS.flatMap((b) => b.env ?? []).concat(SECRET_ENV);
  return [
    '',
    "Run 'fragsync help <command>' (or 'fragsync <command> --help') for the options of one command.",
    'The API key is read from the FRAGSYNC_API_KEY environment variable, never from a flag.',
    `Environment: ${env.join(', ')}`,
    '',
    'Exit codes:',
    exitCodesText(Object.values(EXIT)),
  ].join('\n');
}
