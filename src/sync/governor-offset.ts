import type { Governor } from '../governor/types.ts';

/**
 * The service's clock minus this machine's, as the governor learnt it from the Date headers
 * of the run's answers; null without a governor or when it cannot say.
 */
export async function governorOffset(governor: Governor | undefined): Promise<number | null> {
  return (await governor?.status().catch(() => null))?.clockOffsetMs ?? null;
}
