import { ConfigError } from '../errors.ts';

/** Why an address cannot be listened on, in words (the codes a user's setup causes). */
const LISTEN_ERRORS: Record<string, string> = {
  EADDRINUSE: 'the port is in use',
  EACCES: 'not allowed (a port below 1024 needs privileges)',
  EADDRNOTAVAIL: 'no interface of this machine has that address',
};

/**
 * An address a command cannot listen on (`sim`, `dashboard`) is the setup, not a bug: one line
 * naming the address and why, exit 2. Any other failure is returned as it was.
 */
export function listenError(err: unknown, host: string, port: number): unknown {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (!code || !LISTEN_ERRORS[code]) return err;
  return new ConfigError(`cannot listen on ${host}:${port}: ${LISTEN_ERRORS[code]} (--host, --port)`);
}
