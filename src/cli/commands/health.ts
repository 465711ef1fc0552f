import { EXIT } from '../exit-codes.ts';
import { heartbeatAge } from '../heartbeat.ts';
import type { CommandInput } from '../spec.ts';

/**
 * `fragsync health`: a container healthcheck. Healthy (exit 0) when every check given
 * passes: the heartbeat file of `worker --heartbeat` is recent, the URL answers HTTP.
 */
export async function run(input: CommandInput): Promise<number> {
  const { heartbeat, maxAge, url } = input.opts as { heartbeat?: string; maxAge: number; url?: string };
  if (heartbeat === undefined && url === undefined) {
    console.error('fragsync health: nothing to check: give --heartbeat FILE and/or --url URL');
    return EXIT.badInput;
  }
  const problems: string[] = [];
  if (heartbeat !== undefined) {
    const age = await heartbeatAge(heartbeat);
    if (age === null) problems.push(`no heartbeat at ${heartbeat}`);
    else if (age > maxAge) problems.push(`heartbeat ${Math.round(age)} s old (more than ${maxAge} s)`);
  }
  if (url !== undefined) {
    try {
      // Any HTTP answer (even 401 behind basic auth) means the server is up; 5xx means it is not well.
      const res = await fetch(url, { signal: AbortSignal.timeout(5000) });
      await res.body?.cancel();
      if (res.status >= 500) problems.push(`${url} answered ${res.status}`);
    } catch (err) {
      problems.push(`${url} did not answer (${(err as Error).message})`);
    }
  }
  if (problems.length > 0) {
    console.error(`fragsync health: unhealthy: ${problems.join('; ')}`);
    return EXIT.unexpected;
  }
  return EXIT.ok;
}
