import type { Logger } from 'pino';
import { FragranceClient } from '../api/client.ts';
import type { Config } from '../config/index.ts';
import type { ApiCallItem, SentCall } from '../domain/calls.ts';
import type { Governor } from '../governor/types.ts';

/** The HTTP client as every process builds it from the config: same pool, timeouts and retries. */
export function clientFromConfig(
  config: Config,
  opts: {
    baseUrl: string;
    apiKey: string;
    governor: Governor;
    onCall: (call: ApiCallItem) => void;
    /** Journals each request as it is sent (the warehouse owner only; see CallerDeps.onSent). */
    onSent?: (call: SentCall) => void;
    log: Logger;
  },
): FragranceClient {
  return new FragranceClient({
    baseUrl: opts.baseUrl,
    apiKey: opts.apiKey,
    admission: opts.governor,
    onCall: opts.onCall,
    onSent: opts.onSent,
    concurrency: config.http.concurrency,
    connections: config.http.connections ?? config.http.concurrency,
    connectTimeoutMs: config.http.connectTimeoutMs,
    headersTimeoutMs: config.http.headersTimeoutMs,
    bodyTimeoutMs: config.http.bodyTimeoutMs,
    maxRetries: config.http.maxRetries,
    retryBaseMs: config.http.retryBaseMs,
    retryMaxMs: config.http.retryMaxMs,
    logger: opts.log,
  });
}
