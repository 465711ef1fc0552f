import { describe, expect, it } from 'vitest';
import { Fifo } from '../../src/queue/fifo.ts';

describe('Fifo', () => {
  it('takes items in order across compactions, with put-backs at the head', () => {
    const q = new Fifo<number>();
    const taken: number[] = [];
    for (let i = 0; i < 5000; i++) q.push(i);
    for (let i = 0; i < 3000; i++) taken.push(q.shift()!);
    q.unshift(-1); // a job returned by a pause goes first
    expect(q.length).toBe(2001);
    for (let i = 5000; i < 6000; i++) q.push(i);
    let next: number | undefined;
    while ((next = q.shift()) !== undefined) taken.push(next);
    expect(q.length).toBe(0);
    expect(taken.slice(0, 3000)).toEqual([...Array(3000).keys()]);
    expect(taken[3000]).toBe(-1);
    expect(taken.slice(3001)).toEqual(Array.from({ length: 3000 }, (_, i) => 3000 + i));
  });

  it('puts back at the head of an untouched queue', () => {
    const q = new Fifo<string>();
    q.push('b');
    q.unshift('a');
    expect([q.shift(), q.shift(), q.shift()]).toEqual(['a', 'b', undefined]);
  });
});
