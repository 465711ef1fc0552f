export { createMemoryGovernor, type MemoryGovernorOptions } from './memory.ts';
export { createRedisGovernor, type RedisGovernorOptions } from './redis.ts';
export { reserveFor, DEFAULT_TICKET_TTL_MS, PAUSE_WITHOUT_RESET_MS } from './policy.ts';
export type * from './types.ts';
