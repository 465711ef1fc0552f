import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CONTRACT_TABLES } from '../../src/warehouse/contract.ts';
import { describeSchema, type TableInfo } from '../../src/warehouse/schema-info.ts';
import type { Warehouse } from '../../src/warehouse/warehouse.ts';
import { freshWarehouse } from './fixtures.ts';

let wh: Warehouse;
let cleanup: () => Promise<void>;
let schema: Record<string, TableInfo>;
beforeAll(async () => {
  ({ wh, cleanup } = await freshWarehouse());
  schema = await describeSchema(wh);
});
afterAll(() => cleanup());

const SHARED_CONTRACT = new URL('../../../shared/spec/warehouse-contract.md', import.meta.url);
const LOCAL_CONTRACT = new URL('../../docs/warehouse-contract.md', import.meta.url);

interface ContractTable {
  columns: { name: string; type: string }[];
  primaryKey: string[];
}

/** Parses the contract's markdown table: `| table | col* TYPE (comment), col TYPE, ... — note |`. */
function parseContract(md: string): Record<string, ContractTable> {
  const out: Record<string, ContractTable> = {};
  for (const line of md.split('\n')) {
    const m = /^\|\s*([a-z_]+)\s*\|\s*(.+?)\s*\|\s*$/.exec(line);
    if (!m || m[1] === 'table') continue;
    const spec = m[2]!.split(' — ')[0]!;
    const parts: string[] = [];
    let depth = 0;
    let cur = '';
    for (const ch of spec) {
      if (ch === '(') depth++;
      if (ch === ')') depth--;
      if (ch === ',' && depth === 0) {
        parts.push(cur);
        cur = '';
      } else cur += ch;
    }
    parts.push(cur);
    const table: ContractTable = { columns: [], primaryKey: [] };
    for (const p of parts) {
      const c = /^\s*([a-z_]+)(\*)?\s+([A-Z]+)/.exec(p);
      if (!c) throw new Error(`cannot parse contract column '${p}' of ${m[1]}`);
      table.columns.push({ name: c[1]!, type: c[3]! });
      if (c[2]) table.primaryKey.push(c[1]!);
    }
    out[m[1]!] = table;
  }
  return out;
}

const normalizeType = (t: string): string => (t === 'TIMESTAMP WITH TIME ZONE' ? 'TIMESTAMPTZ' : t);

describe('schema', () => {
  const contractText = existsSync(SHARED_CONTRACT)
    ? readFileSync(SHARED_CONTRACT, 'utf8')
    : readFileSync(LOCAL_CONTRACT, 'utf8');

  test('the committed contract copy equals the shared spec when both exist', () => {
    if (existsSync(SHARED_CONTRACT)) {
      expect(readFileSync(LOCAL_CONTRACT, 'utf8')).toBe(readFileSync(SHARED_CONTRACT, 'utf8'));
    }
    expect(contractText).toContain('| fragrances |');
  });

  test('contract tables exist with exactly the contract columns (in order, before extras), types and keys', () => {
    const contract = parseContract(contractText);
    expect(Object.keys(contract).sort()).toEqual([...CONTRACT_TABLES].sort());
    for (const [name, want] of Object.entries(contract)) {
      const have = schema[name];
      expect(have?.kind, name).toBe('table');
      const contractCols = have!.columns.filter((c) => !c.name.startsWith('_'));
      expect(
        contractCols.map((c) => ({ name: c.name, type: normalizeType(c.type) })),
        name,
      ).toEqual(want.columns);
      expect([...have!.primaryKey].sort(), `${name} primary key`).toEqual([...want.primaryKey].sort());
    }
  });

  test('the migrated schema equals the committed snapshot (run npm run schema:snapshot after a migration)', () => {
    const snapshot = JSON.parse(
      readFileSync(new URL('./schema-snapshot.json', import.meta.url), 'utf8'),
    ) as unknown;
    expect(schema).toEqual(snapshot);
  });

  test('the data dictionary documents every table and column, and nothing else', () => {
    const md = readFileSync(new URL('../../docs/data-dictionary.md', import.meta.url), 'utf8');
    const documented: Record<string, { name: string; type: string }[]> = {};
    let current: string | null = null;
    for (const line of md.split('\n')) {
      const h = /^## ([a-z_]+)\s*$/.exec(line);
      if (h) current = h[1]!;
      else if (line.startsWith('## ')) current = null;
      const row = /^\|\s*([a-z_]+)\s*\|\s*([A-Z][A-Z ()[\]0-9,]*?)\s*\|.*\|$/.exec(line);
      if (current && row) (documented[current] ??= []).push({ name: row[1]!, type: row[2]! });
    }
    const actual = Object.fromEntries(
      Object.entries(schema).map(([t, info]) => [
        t,
        info.columns.map((c) => ({ name: c.name, type: c.type })),
      ]),
    );
    expect(documented).toEqual(actual);
  });
});
