import pino, { type Logger } from 'pino';

/**
 * Logs are pino JSON lines on stderr (stdout carries the summary and query answers).
 * Nothing that could hold a secret is ever logged: no headers, no request options; the
 * redaction below is a second line of defence for fields that should never be there.
 */
export function createLogger(level: string, destination: NodeJS.WritableStream = process.stderr): Logger {
  return pino(
    {
      level,
      base: { pid: process.pid },
      redact: {
        paths: ['apiKey', '*.apiKey', 'authorization', '*.authorization', 'headers', '*.headers'],
        remove: true,
      },
    },
    destination as pino.DestinationStream,
  );
}
