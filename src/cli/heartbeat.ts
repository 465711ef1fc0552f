import { writeFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';

/**
 * A worker's sign of life for container healthchecks: the file's modification time is
 * renewed every `everyMs` after `alive()` succeeds (a Redis PING: a worker whose Redis is
 * gone is not healthy). `fragsync health --heartbeat FILE` reads it.
 */
export function startHeartbeat(
  file: string,
  alive: () => Promise<unknown>,
  everyMs = 10_000,
): { stop(): void } {
  const beat = () =>
    alive().then(
      () => writeFileSync(file, `${new Date().toISOString()}\n`),
      () => undefined,
    );
  void beat();
  const timer = setInterval(() => void beat(), everyMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

/** Seconds since the heartbeat file was renewed; null when there is none. */
export async function heartbeatAge(file: string, now = Date.now()): Promise<number | null> {
  try {
    return (now - (await stat(file)).mtimeMs) / 1000;
  } catch {
    return null;
  }
}
