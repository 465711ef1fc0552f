import { describe, expect, it } from 'vitest';
import { IDLE_REASONS, Occupancy, type IdleReason } from '../../src/api/occupancy.ts';

const sum = (idle: Record<IdleReason, number>): number => IDLE_REASONS.reduce((s, r) => s + idle[r], 0);

describe('Occupancy', () => {
  it('integrates requests on the wire over time and charges idle slot-time to its reason', () => {
    let t = 0;
    const m = new Occupancy(4, () => t);
    let why: IdleReason = 'noWork';
    m.start(() => why);
    // 0-10: nothing. 10-30: one request on the wire, one asking the governor for its ticket.
    // 30-40: two on the wire, the two free slots explained as 'jobsBusy'.
    t = 10;
    m.wireChange(1);
    m.admitting(1);
    why = 'noneReady';
    t = 30;
    m.admitting(-1);
    m.wireChange(1);
    why = 'jobsBusy';
    t = 40;
    m.wireChange(-1);
    m.wireChange(-1);
    const f = m.stop()!;
    expect(f.wallMs).toBe(40);
    expect(f.meanInFlight).toBeCloseTo((1 * 20 + 2 * 10) / 40);
    expect(f.occupancy).toBeCloseTo(40 / 160);
    expect(f.underShare).toBe(1);
    expect(f.idle.noWork).toBeCloseTo((4 * 10) / 160);
    expect(f.idle.governor).toBeCloseTo((1 * 20) / 160);
    expect(f.idle.noneReady).toBeCloseTo((2 * 20) / 160);
    expect(f.idle.jobsBusy).toBeCloseTo((2 * 10) / 160);
    expect(f.occupancy + sum(f.idle)).toBeCloseTo(1);
    expect(m.stop()).toBeNull(); // measuring stopped
  });

  it('charges the governor no more than the free slots, and nothing before start()', () => {
    let t = 0;
    const m = new Occupancy(2, () => t);
    m.wireChange(1);
    t = 100; // not measured yet
    m.start(() => 'noWork');
    m.wireChange(1);
    // Tickets asked for while every slot carries a request cost no idle slot.
    m.admitting(1);
    m.admitting(1);
    t = 150;
    m.wireChange(-1);
    t = 160;
    const f = m.stop()!;
    expect(f.wallMs).toBe(60);
    expect(f.occupancy).toBeCloseTo((2 * 50 + 10) / 120);
    expect(f.underShare).toBeCloseTo(10 / 60);
    expect(f.idle.governor).toBeCloseTo(10 / 120);
    expect(f.idle.noWork).toBe(0);
  });
});
