import { CONFIG_FILE_FLAG, bindingOf } from '../config/index.ts';
import { EXIT } from './exit-codes.ts';
import type { CommandInput, CommandSpec } from './spec.ts';

/**
 * `fragsync completion bash|zsh`: a static script made from the command table, so it
 * completes exactly the commands and options this version has (and choices of options
 * that have them).
 */

function flagsOf(spec: CommandSpec): string[] {
  const flags = (spec.config ?? []).map((f) => `--${bindingOf(f).flag}`);
  if (spec.config) flags.push(`--${CONFIG_FILE_FLAG.flag}`);
  for (const o of spec.options ?? []) {
    const long = /--[\w-]+/.exec(o.flags)?.[0];
    if (long) flags.push(long);
  }
  flags.push('--help');
  return flags;
}

function choicesOf(spec: CommandSpec): [string, readonly string[]][] {
  return (spec.options ?? [])
    .filter((o) => o.choices)
    .map((o) => [/--[\w-]+/.exec(o.flags)?.[0] ?? '', o.choices as readonly string[]]);
}

export function bashCompletion(commands: readonly CommandSpec[]): string {
  const names = commands.map((c) => c.name).concat('help');
  const cases = commands
    .map((c) => {
      const choices = choicesOf(c)
        .map(
          ([flag, values]) =>
            `        ${flag}) COMPREPLY=($(compgen -W "${values.join(' ')}" -- "$cur")); return ;;`,
        )
        .join('\n');
      return [
        `    ${c.name})`,
        ...(choices ? [`      case "$prev" in`, choices, `      esac`] : []),
        `      COMPREPLY=($(compgen -W "${flagsOf(c).join(' ')}" -- "$cur")) ;;`,
      ].join('\n');
    })
    .join('\n');
  return `# fragsync bash completion: source <(fragsync completion bash)
_fragsync() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}"
  if [ "$COMP_CWORD" -eq 1 ] || { [ "$COMP_CWORD" -eq 2 ] && [ "\${COMP_WORDS[1]}" = help ]; }; then
    COMPREPLY=($(compgen -W "${names.join(' ')}" -- "$cur")); return
  fi
  case "\${COMP_WORDS[1]}" in
${cases}
  esac
  # Options that take a file or folder: complete paths.
  case "$prev" in --db|--config|--parquet|--spool-dir|--data|-f|--file) COMPREPLY=($(compgen -f -- "$cur")) ;; esac
}
complete -F _fragsync fragsync
`;
}

export function zshCompletion(commands: readonly CommandSpec[]): string {
  // zsh runs bash completion functions through bashcompinit: one script to keep right.
  return `# fragsync zsh completion: source <(fragsync completion zsh)
autoload -U +X bashcompinit && bashcompinit
${bashCompletion(commands)}`;
}

export async function run(input: CommandInput): Promise<number> {
  const shell = input.args[0];
  if (shell === 'bash') process.stdout.write(bashCompletion(input.commands));
  else if (shell === 'zsh') process.stdout.write(zshCompletion(input.commands));
  else {
    console.error(`fragsync completion: unknown shell '${shell}': bash or zsh`);
    return EXIT.badInput;
  }
  return EXIT.ok;
}
