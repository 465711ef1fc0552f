import { sha1Hex } from './sha1.ts';

/**
 * An order-independent digest of a multiset of rows: the row count and the sum (mod 2^64) of
 * the first 64 bits of each row's SHA-1, each row canonicalized as its JSON array. Two tables
 * with the same rows in any order, duplicates included, have the same digest; one row more,
 * less or different changes it. Lets two processes compare tables of millions of rows
 * (a warehouse against the simulator's truth) without holding either in memory.
 */
export class RowDigest {
  private sum = 0n;
  rows = 0;

  add(row: readonly unknown[]): void {
    this.sum = (this.sum + BigInt(`0x${sha1Hex(JSON.stringify(row)).slice(0, 16)}`)) & 0xffffffffffffffffn;
    this.rows++;
  }

  get digest(): string {
    return this.sum.toString(16).padStart(16, '0');
  }
}

export interface TableDigest {
  rows: number;
  digest: string;
}
