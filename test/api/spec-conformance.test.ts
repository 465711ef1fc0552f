import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { ENDPOINTS, ENDPOINT_NAMES, MAX_PAGE_SIZE, type EndpointName } from '../../src/domain/endpoints.ts';
import {
  BOUNDS,
  DEFAULT_LIMIT,
  MAX_LIST_QUERY_CHARS,
  MIN_SEARCH_QUERY_CHARS,
  SEARCH_TYPES,
} from '../../src/api/params.ts';
import * as S from '../../src/api/schemas.ts';
import { PRICE_TABLE } from '../../src/simulator/price-table.ts';
import {
  integerBounds,
  resourceLeaves,
  section,
  SPEC,
  subsections,
  tables,
  type Leaf,
} from '../helpers/spec.ts';

/**
 * The schemas, parameter checks and price table against the spec itself (docs/fragrance-api.md),
 * read table by table: a schema may refuse only what the spec rules out for that very field
 * (a wrong type, a missing listed field, a stated format), never a value it allows (an empty
 * string, a score on another scale, a number outside a stated range: that is stored and
 * flagged), and a price or a parameter bound must be the spec's.
 */

type Schema = z.ZodType;

/** Each resource of "Resources and their fields", and the schema(s) that read it. */
const RESOURCES: {
  title: string;
  label?: string;
  schema: Schema;
  only?: { fields: string[]; because: string };
}[] = [
  { title: 'Fragrance summary (list, batch, trending, search)', schema: S.FragranceSummary },
  { title: 'Fragrance profile (get fragrance)', schema: S.FragranceProfile },
  { title: 'Review', schema: S.Review },
  { title: 'Similar-fragrance entry', schema: S.SimilarEntry },
  { title: 'Wearing stats', schema: S.WearingStats },
  { title: 'Brand', schema: S.Brand },
  { title: 'Perfumer', schema: S.Perfumer },
  { title: 'Note', schema: S.Note },
  {
    title: 'Note',
    label: ', as the note list gives it',
    schema: S.NoteListItem,
    only: {
      fields: ['slug', 'name', 'family'],
      because: 'The note list returns only slug, name and family per item.',
    },
  },
  { title: 'Accord family', schema: S.Accord },
  { title: 'Chart', schema: S.Chart },
  {
    title: 'Chart',
    label: ', as the chart list gives it',
    schema: S.ChartListItem,
    only: { fields: ['slug', 'title'], because: 'The chart list returns only slug and title per chart.' },
  },
];

/** Values of the leaf's type that the spec allows whatever it says of ranges: each must pass. */
function legalEdges(leaf: Leaf): unknown[] {
  if (leaf.format === 'YYYY-MM-DD') return ['1900-01-01', '2024-02-29', '9999-12-31'];
  const strings = ['', ' ', 'Ünïcødé/?#%&\'"', 'x'.repeat(5000)];
  switch (leaf.type) {
    case 'string':
      return strings;
    case 'string or null':
      return [...strings, null];
    case 'float':
      // Beyond a stated range too: such a value is stored as sent and flagged, never refused.
      return [-1e9, -1, 0, 1e-9, 0.5, 1.2, 5.3, 7, 100, 1e9];
    case 'integer':
      return [-5, 0, 1, 99_999, 2 ** 40];
  }
}

/** Values the spec rules out for the leaf: a wrong type, or a broken stated format. */
function illegal(leaf: Leaf): unknown[] {
  const wrongType: Record<Leaf['type'], unknown[]> = {
    string: [5, null, true, {}, []],
    'string or null': [5, true, {}],
    float: ['4.5', null, true, {}],
    integer: [1.5, '2001', null, true],
  };
  const format =
    leaf.format === 'YYYY-MM-DD' ? ['2024-1-1', '2024-02-30', '01/02/2024', '2024-01-01T00:00Z'] : [];
  return [...wrongType[leaf.type], ...format];
}

function baselineValue(leaf: Leaf): unknown {
  if (leaf.format === 'YYYY-MM-DD') return '2024-01-02';
  if (leaf.type === 'integer') return 2001;
  if (leaf.type === 'float') return leaf.range ? (leaf.range[0] + leaf.range[1]) / 2 : 3.25;
  return 'x';
}

/** Sets `path` (`a.b`, `a[].b`, `a[]`) in `obj`, creating what is missing; the array's first entry. */
function setPath(obj: Record<string, unknown>, path: string, value: unknown): void {
  const steps = path.split('.').flatMap((s) => (s.endsWith('[]') ? [s.slice(0, -2), 0] : [s]));
  let at: Record<string | number, unknown> = obj;
  steps.forEach((step, i) => {
    if (i === steps.length - 1) {
      at[step] = value;
      return;
    }
    at[step] ??= typeof steps[i + 1] === 'number' ? [] : {};
    at = at[step] as Record<string | number, unknown>;
  });
}

function build(leaves: Leaf[], override?: { path: string; value: unknown }): Record<string, unknown> {
  const obj: Record<string, unknown> = {};
  for (const leaf of leaves)
    setPath(obj, leaf.path, override?.path === leaf.path ? override.value : baselineValue(leaf));
  return obj;
}

const show = (v: unknown) =>
  typeof v === 'string' && v.length > 20 ? `'${v.slice(0, 8)}…' (${v.length})` : JSON.stringify(v);

describe.each(RESOURCES.map((r) => ({ label: '', ...r })))('$title$label', ({ title, schema, only }) => {
  const all = resourceLeaves(title);
  const leaves = only ? all.filter((l) => only.fields.includes(l.path)) : all;

  it('reads every field the table lists, as the spec gives it', () => {
    if (only) expect(SPEC).toContain(only.because);
    const base = build(leaves);
    expect(schema.parse(base)).toEqual(base);
    const extra = { ...base, addedLater: { any: 'thing' } };
    expect(schema.parse(extra)).toEqual(base); // unknown fields: stripped, never refused
  });

  it('accepts every value of each field that the spec allows', () => {
    const refused: string[] = [];
    for (const leaf of leaves)
      for (const value of legalEdges(leaf)) {
        const r = schema.safeParse(build(leaves, { path: leaf.path, value }));
        if (!r.success) refused.push(`${leaf.path} = ${show(value)}: ${r.error.issues[0]?.message}`);
      }
    for (const list of new Set(
      leaves.filter((l) => l.path.includes('[]')).map((l) => l.path.split('[]')[0]!),
    )) {
      const base = build(leaves);
      setPath(base, list, []);
      if (!schema.safeParse(base).success) refused.push(`${list} = []`);
    }
    expect(refused).toEqual([]);
  });

  it('refuses what the spec rules out: a wrong type, a broken format, a listed field missing', () => {
    const accepted: string[] = [];
    for (const leaf of leaves) {
      for (const value of illegal(leaf))
        if (schema.safeParse(build(leaves, { path: leaf.path, value })).success)
          accepted.push(`${leaf.path} = ${show(value)}`);
      const missing = build(leaves, { path: leaf.path, value: undefined });
      if (schema.safeParse(missing).success) accepted.push(`${leaf.path} missing`);
    }
    expect(accepted).toEqual([]);
  });
});

describe('the resources the spec describes in prose', () => {
  it('every resource with a field table is read by a schema above', () => {
    const prose = ['Search result item', 'Pagination object'];
    expect(subsections('Resources and their fields').filter((t) => !prose.includes(t))).toEqual([
      ...new Set(RESOURCES.map((r) => r.title)),
    ]);
  });

  it('pagination: three integers, no range stated (`limit` is "the page size used")', () => {
    const body = section('Pagination object');
    const fields = [...body.matchAll(/`pagination\.(\w+)` \(integer[,)]/g)].map(
      (m) => m[1] as keyof S.Pagination,
    );
    expect(fields).toEqual(['page', 'limit', 'total']);
    for (const value of [-3, 0, 1, 7, 2 ** 40])
      for (const f of fields)
        expect(S.Pagination.parse({ page: 1, limit: 50, total: 9, [f]: value })[f]).toBe(value);
    for (const value of [1.5, '2', null])
      expect(S.Pagination.safeParse({ page: 1, limit: value, total: 9 }).success).toBe(false);
  });

  it('search results: a fragrance carries type, id, name, brand; others are kept as they came, with or without a type', () => {
    expect(section('Search result item')).toContain(
      'Fragrance results carry: type (string), id (string), name (string), brand (string). Fields of results of the other types (note, brand, perfumer, collection): not shown.',
    );
    const results = [
      { type: 'fragrance', id: '', name: '', brand: '' },
      { type: 'note', slug: 'rose' },
      { type: 'podcast', anything: [1, 2] },
      { slug: 'no-type-at-all' },
      {},
    ];
    expect(S.SearchResponse.parse({ results })).toEqual({ results });
    expect(
      S.SearchResponse.safeParse({ results: [{ type: 'fragrance', name: 'N', brand: 'B' }] }).success,
    ).toBe(false);
    expect(S.SearchResponse.safeParse({ results: [{ type: 7 }] }).success).toBe(true);
  });
});

/** Each endpoint's response schema, for the top-level keys its `Response:` line names. */
const RESPONSES: Partial<Record<EndpointName, z.ZodObject>> = {
  search: S.SearchResponse,
  trending: S.TrendingResponse,
  listCharts: S.ChartListResponse,
  listFragrances: S.FragranceListResponse,
  getReviews: S.ReviewsResponse,
  getSimilar: S.SimilarResponse,
  batch: S.BatchResponse,
  enrich: S.EnrichResponse,
  getBrandFragrances: S.BrandFragrancesResponse,
  listNotes: S.NoteListResponse,
  listAccords: S.AccordListResponse,
};

const headingOf = (name: EndpointName) => `${ENDPOINTS[name].method} ${ENDPOINTS[name].template}`;

describe('responses', () => {
  it.each(Object.entries(RESPONSES))(
    '%s: the keys its Response line names, strings never required non-empty',
    (name, schema) => {
      const body = section(headingOf(name as EndpointName));
      const literal = /(?:Response:|returns) `\{ (.+?) \}`/.exec(body)![1]!;
      // Top-level keys only: drop what nested braces and brackets hold.
      let flat = literal;
      while (/\{[^{}]*\}|\[[^[\]]*\]/.test(flat)) flat = flat.replace(/\{[^{}]*\}|\[[^[\]]*\]/g, '');
      const keys = flat.split(',').map((k) => k.trim().split(':')[0]!.trim());
      expect(Object.keys(schema.shape).sort()).toEqual(keys.sort());
      for (const [key, field] of Object.entries(schema.shape))
        if ((field as z.ZodType).safeParse('x').success)
          expect((field as z.ZodType).safeParse('').success, key).toBe(true);
    },
  );
});

describe('prices and parameters', () => {
  const rows = tables(section('Endpoints'))[0]!;

  const specPrices = rows
    .map((r) => `${r.Method} ${r.Path} ${Number.parseInt(r['Cost (cents)']!, 10)}`)
    .sort();

  it("the client's price table is the Endpoints table: every method, path and cost, nothing else", () => {
    const ours = ENDPOINT_NAMES.map(
      (n) => `${ENDPOINTS[n].method} ${ENDPOINTS[n].template} ${ENDPOINTS[n].costCents}`,
    ).sort();
    expect(ours).toEqual(specPrices);
    expect(rows.find((r) => r.Path === '/v1/fragrances/batch')!['Cost (cents)']).toBe('25 flat');
  });

  it("the simulator's own price table, separately, is the Endpoints table too", () => {
    const sim = Object.values(PRICE_TABLE).map((e) => `${e.method} ${e.path} ${e.costCents}`);
    expect(sim.sort()).toEqual(specPrices);
  });

  it.each(Object.keys(BOUNDS))('%s: integer parameters bounded exactly as the spec states', (name) => {
    const heading = headingOf(name as EndpointName);
    const bounds = BOUNDS[name as keyof typeof BOUNDS] as Record<
      string,
      readonly [number | null, number | null]
    >;
    expect(Object.fromEntries(Object.entries(bounds).map(([k, v]) => [k, [...v]]))).toEqual(
      integerBounds(heading),
    );
  });

  it('every endpoint with integer parameters has its bounds checked', () => {
    const withInts = ENDPOINT_NAMES.filter((n) => Object.keys(integerBounds(headingOf(n))).length > 0);
    expect(withInts.sort()).toEqual(Object.keys(BOUNDS).sort());
  });

  it("defaults, the largest page sizes and the string rules are the spec's", () => {
    for (const [name, limit] of Object.entries(DEFAULT_LIMIT))
      expect(section(headingOf(name as EndpointName)), name).toMatch(
        new RegExp(`limit[^\\n]*default ${limit}\\b`),
      );
    for (const [name, max] of Object.entries(BOUNDS)) {
      const limit = (max as { limit?: readonly [number | null, number | null] }).limit;
      if (limit) expect(MAX_PAGE_SIZE[name as keyof typeof MAX_PAGE_SIZE]).toBe(limit[1]);
    }
    const search = tables(section(headingOf('search')))[0]!;
    expect(search.find((r) => r['Query parameter'] === 'q')!.Rules).toBe(
      `minimum length ${MIN_SEARCH_QUERY_CHARS}`,
    );
    expect(search.find((r) => r['Query parameter'] === 'type')!.Rules).toBe(
      `one of ${SEARCH_TYPES.join(', ')}; when omitted all types are returned`,
    );
    const list = tables(section(headingOf('listFragrances')))[0]!;
    expect(list.find((r) => r['Query parameter'] === 'q')!.Rules).toBe(`length 1 to ${MAX_LIST_QUERY_CHARS}`);
    expect(section(headingOf('batch'))).toContain(
      `\`ids\` (array of string, required, 1 to ${MAX_PAGE_SIZE.batchIds} entries)`,
    );
  });
});
