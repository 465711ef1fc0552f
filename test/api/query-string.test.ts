import { expect, test } from 'vitest';
import { queryString } from '../../src/api/http.ts';
import { createMemoryGovernor } from '../../src/governor/memory.ts';

test('queryString writes exactly what URLSearchParams writes, plain values or not', () => {
  const queries: Record<string, string>[] = [
    {},
    { page: '2', limit: '50' },
    { q: 'eau de parfum', limit: '10' },
    { q: "a+b&c=d/é~!'()*", page: '1' },
    { 'odd key': 'x', page: '3' },
    { a: '', b: '-_.*' },
  ];
  for (const q of queries) {
    const expected = Object.keys(q).length > 0 ? `?${new URLSearchParams(q)}` : '';
    expect(queryString(q)).toBe(expected);
  }
});

test("the memory governor's synchronous admit, settle and release keep the same books as the promises", async () => {
  const limits = {
    reserveCalls: 0,
    reservePercent: 0,
    maxCentsPerRun: 3,
    maxCentsPerDay: null,
    resumeJitterMs: 0,
  };
  const gov = createMemoryGovernor(limits);
  await gov.startRun('r');
  const first = gov.now!.admit('getFragrance');
  if (!first.ok) throw new Error('refused');
  // Until an answer tells the quota, one call at a time: the promise sees the first ticket.
  expect(await gov.admit('getFragrance')).toMatchObject({ ok: false, reason: 'busy' });
  gov.now!.settle(first.ticket, {
    status: 200,
    rateLimit: { limit: 100, remaining: 90, resetAt: null, serverDate: null },
  });
  const second = await gov.admit('getFragrance');
  if (!second.ok) throw new Error('refused');
  gov.now!.release(second.ticket);
  const status = await gov.status();
  expect(status).toMatchObject({ inFlight: 0, centsThisRun: 1, remaining: 90 });
});
