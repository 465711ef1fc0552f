import { describe, expect, it } from 'vitest';
import { createMemoryGovernor, reserveFor } from '../../src/governor/index.ts';
import { governorContract } from './contract.ts';
import { testLimits } from './fixtures.ts';

governorContract('memory', async ({ limits, now, random, ticketTtlMs, logger }) =>
  createMemoryGovernor(limits, { now, random, ticketTtlMs, logger }),
);

describe('reserveFor', () => {
  it('is the larger of the fixed reserve and the percentage of the limit, rounded up', () => {
    const limits = testLimits({ reserveCalls: 5, reservePercent: 10 });
    expect(reserveFor(null, limits)).toBe(5);
    expect(reserveFor(40, limits)).toBe(5);
    expect(reserveFor(51, limits)).toBe(6);
    expect(reserveFor(1000, limits)).toBe(100);
  });
});

describe('memory governor', () => {
  it('rejects a seed day that is not YYYY-MM-DD', async () => {
    const gov = createMemoryGovernor(testLimits());
    await expect(gov.seedSpend(5, '15/01/2030')).rejects.toThrow(/YYYY-MM-DD/);
  });
});
