import { execFile } from 'node:child_process';

/**
 * Running out of room to write, for tests, without root or a small filesystem: the command
 * runs under a file-size limit (bash's `ulimit -f`, in KiB), so a write that would grow any
 * file past it fails with EFBIG, as a full disk fails it with ENOSPC. SIGXFSZ is ignored
 * first, or the kernel would kill the process at the first such write; an ignored signal
 * stays ignored across exec. Returns the program and arguments to spawn.
 */
export function withFileSizeLimit(kb: number, command: string, args: string[]): [string, string[]] {
  // --norc: with stdin a socket (as Node's pipes to a child are), bash would read ~/.bashrc.
  return ['bash', ['--norc', '-c', `trap '' XFSZ; ulimit -f ${kb}; exec "$0" "$@"`, command, ...args]];
}

/**
 * A TypeScript module (as text, importing the project's sources by path from the repository
 * root) run in its own Node process under a file-size limit; resolves with what it printed.
 */
export function runUnderFileLimit(
  kb: number,
  source: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const [cmd, args] = withFileSizeLimit(kb, process.execPath, [
    '--import',
    'tsx',
    '--input-type=module',
    '-e',
    source,
  ]);
  const root = new URL('../..', import.meta.url);
  return new Promise((resolve) => {
    execFile(cmd, args, { cwd: root, timeout: 30_000 }, (err, stdout, stderr) => {
      const code = err ? Number((err as { code?: number }).code ?? 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}
