import 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Redis for tests: REDIS_URL, or a private redis-server started by global-setup. */
    redisUrl: string;
    /** True when global-setup started that Redis (only then may a test flush it). */
    redisOwned: boolean;
  }
}
