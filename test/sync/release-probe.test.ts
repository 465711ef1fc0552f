import { describe, expect, it } from 'vitest';
import { ReleaseProbe } from '../../src/sync/release-probe.ts';

/**
 * The verdict on whether the service puts a release into older similar lists (not shown in
 * the spec): guesses wait for it, one probe naming the release frees them, three probes that
 * do not drop them, and what no probe could settle is handed back to be stored as owed.
 */
describe('release probe', () => {
  it('a probe that names its release settles it live: every held guess is owed', () => {
    const p = new ReleaseProbe();
    expect(p.guessed('new-1', ['a', 'b', 'c', 'd'])).toEqual([]);
    expect(p.ownList('new-1', ['c', 'a', 'd', 'b'])).toEqual({ probes: ['c', 'a', 'd'], owe: [] });
    expect(p.guessed('new-2', ['e'])).toEqual([]);
    expect(p.listRead('c', ['x', 'new-1'])).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(p.verdict).toBe('live');
    // From now on guesses are owed at once, and other probes change nothing.
    expect(p.guessed('new-3', ['f'])).toEqual(['f']);
    expect(p.listRead('a', ['x'])).toEqual([]);
    expect(p.verdict).toBe('live');
  });

  it('three probes without their release, and none with it, settle it fixed: guesses are dropped', () => {
    const p = new ReleaseProbe();
    p.guessed('new-1', ['a', 'b', 'c', 'd']);
    expect(p.ownList('new-1', ['a', 'b', 'c', 'd']).probes).toEqual(['a', 'b', 'c']);
    expect(p.listRead('a', ['x'])).toEqual([]);
    expect(p.listRead('b', ['y'])).toEqual([]);
    expect(p.verdict).toBe('unknown');
    expect(p.listRead('c', ['z'])).toEqual([]);
    expect(p.verdict).toBe('fixed');
    expect(p.bought).toBe(3);
    expect(p.guessed('new-2', ['e'])).toEqual([]);
    expect(p.ownList('new-2', ['e'])).toEqual({ probes: [], owe: [] });
    expect(p.takeHeld()).toEqual([]);
  });

  it('a release whose own list offers no probe has its guesses owed; unsettled guesses are handed back', () => {
    const p = new ReleaseProbe();
    p.guessed('new-1', ['a', 'b']);
    expect(p.ownList('new-1', [])).toEqual({ probes: [], owe: ['a', 'b'] });
    expect(p.guessed('new-1', ['c'])).toEqual(['c']);
    p.guessed('new-2', ['d', 'e']);
    expect(p.ownList('new-2', ['d']).probes).toEqual(['d']);
    p.listFailed('d');
    expect(p.verdict).toBe('unknown');
    expect(p.takeHeld()).toEqual(['d', 'e']);
    expect(p.takeHeld()).toEqual([]);
  });
});
