import type { ApiCallItem, SentCall } from '../../src/domain/calls.ts';
import type { FragranceProfileItem, LoadBatch, LoadItem, ProgressMark } from '../../src/domain/items.ts';
import { Warehouse, type OpenOptions } from '../../src/warehouse/warehouse.ts';
import { tempDir } from '../helpers/tmp.ts';

/** A fresh warehouse file in its own temp folder, opened with `opts`. */
export async function freshWarehouse(opts: OpenOptions = {}): Promise<{
  wh: Warehouse;
  dir: string;
  path: string;
  cleanup(): Promise<void>;
}> {
  const tmp = await tempDir('fragsync-wh-');
  const path = `${tmp.path}/db/warehouse.duckdb`;
  const wh = await Warehouse.open(path, opts);
  return {
    wh,
    dir: tmp.path,
    path,
    cleanup: async () => {
      await wh.close().catch(() => undefined);
      await tmp.cleanup();
    },
  };
}

export function profile(id: string, over: Partial<FragranceProfileItem> = {}): FragranceProfileItem {
  return {
    kind: 'fragrance',
    id,
    name: `Name ${id}`,
    brand: 'Maison X',
    brandSlug: 'maison-x',
    perfumer: 'Ann Nose',
    perfumerSlug: 'ann-nose',
    year: 2001,
    score: 4.1,
    notes: { top: ['Bergamot', 'Lemon'], middle: ['Rose'], base: ['Musk', 'Amber', 'Vanilla'] },
    accords: [
      { name: 'citrus', strength: 0.9 },
      { name: 'woody', strength: 0.4 },
    ],
    ...over,
  };
}

export function batch(items: LoadItem[], progress: ProgressMark[] = [], runId = 'run-1'): LoadBatch {
  return { runId, items, progress };
}

export async function count(wh: Warehouse, table: string, where = 'true'): Promise<number> {
  const [row] = await wh.query<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM ${table} WHERE ${where}`);
  return row?.n ?? -1;
}

/** A request as its sending was recorded (a profile read, at a fixed time). */
export function sentCall(callId: string): SentCall {
  return {
    callId,
    at: '2024-06-01T10:00:00.000Z',
    method: 'GET',
    endpoint: '/v1/fragrances/{id}',
    costCents: 2,
  };
}

/** The ledger row of that request, with the status the service answered. */
export function answeredCall(callId: string, status: number): ApiCallItem {
  return { ...sentCall(callId), kind: 'apiCall', status, quotaRemaining: 90 };
}
