import { readFileSync } from 'node:fs';

/**
 * The API spec (docs/fragrance-api.md, the repository's copy of the one description of the
 * service) read as data: its sections, its tables, the fields of each resource with their
 * types and stated ranges, and the bounds of each parameter. The tests that hold the schemas,
 * the parameter checks and the price tables to the spec read it through here.
 */
export const SPEC = readFileSync(new URL('../../docs/fragrance-api.md', import.meta.url), 'utf8');

/** The body of the section under the heading `title` (any level), up to the next heading of that level or above. */
export function section(title: string, text = SPEC): string {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => /^#+ /.test(l) && l.replace(/^#+ /, '') === title);
  if (start < 0) throw new Error(`the spec has no section '${title}'`);
  const level = /^#+/.exec(lines[start]!)![0].length;
  const end = lines.findIndex((l, i) => i > start && /^#+ /.test(l) && /^#+/.exec(l)![0].length <= level);
  return lines.slice(start + 1, end < 0 ? undefined : end).join('\n');
}

/** The headings directly below `parent` (one level down). */
export function subsections(parent: string): string[] {
  return section(parent)
    .split('\n')
    .filter((l) => l.startsWith('### '))
    .map((l) => l.slice(4));
}

/** Every pipe table in `body`, each as rows keyed by its header cells. */
export function tables(body: string): Record<string, string>[][] {
  const out: Record<string, string>[][] = [];
  const lines = body.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i]!.startsWith('|') || !/^\|[-| ]+\|$/.test(lines[i + 1] ?? '')) continue;
    const cells = (l: string) =>
      l
        .slice(1, -1)
        .split('|')
        .map((c) => c.trim());
    const header = cells(lines[i]!);
    const rows: Record<string, string>[] = [];
    for (i += 2; i < lines.length && lines[i]!.startsWith('|'); i++) {
      const c = cells(lines[i]!);
      rows.push(Object.fromEntries(header.map((h, k) => [h, c[k] ?? ''])));
    }
    out.push(rows);
  }
  return out;
}

export type LeafType = 'string' | 'string or null' | 'float' | 'integer';

/** One value a resource carries, at a path such as `accords[].strength` or `notes.top[]`. */
export interface Leaf {
  path: string;
  type: LeafType;
  /** A range the spec states for it ([min, max]), if any. */
  range: [number, number] | null;
  /** A format the spec states for it (only the review date's). */
  format: string | null;
}

/** "0.0 to 1.0", "0.5 to 5.0", "out of 5.0" (read as 0 to 5), "0.0 (no similarity) to 1.0 (...)". */
export function statedRange(notes: string): [number, number] | null {
  const to = /(\d+(?:\.\d+)?)(?: \([^)]*\))? to (\d+(?:\.\d+)?)/.exec(notes);
  if (to) return [Number(to[1]), Number(to[2])];
  const outOf = /out of (\d+(?:\.\d+)?)/.exec(notes);
  return outOf ? [0, Number(outOf[1])] : null;
}

/** The items of a list described in prose: "items: id, name, brand (strings), score (float)". */
function itemFields(prose: string): { name: string; type: LeafType; range: [number, number] | null }[] {
  const out: { name: string; type: LeafType; range: [number, number] | null }[] = [];
  const list = /items: ([^;]+)/.exec(prose)?.[1] ?? /each item has (.+)$/.exec(prose)?.[1];
  if (!list) throw new Error(`cannot read the items of: ${prose}`);
  let pending: string[] = [];
  for (const part of list.split(/, | and /)) {
    const m = /^`?(\w+)`?(?: \((\w+)s?(?: ([^)]*))?\))?$/.exec(part.trim());
    if (!m) throw new Error(`cannot read the item field '${part}' in: ${prose}`);
    pending.push(m[1]!);
    if (!m[2]) continue;
    const type = m[2].replace(/s$/, '') as LeafType;
    for (const name of pending) out.push({ name, type, range: m[3] ? statedRange(m[3]) : null });
    pending = [];
  }
  if (pending.length > 0) throw new Error(`no type for ${pending.join(', ')} in: ${prose}`);
  return out;
}

/**
 * The leaves of a resource's field table. Arrays the table calls `array` get their items from
 * its Notes (`items: ...`, `each item has ...`) or, for the note pyramid, from the sentence
 * the spec gives below the table.
 */
export function resourceLeaves(resource: string): Leaf[] {
  const body = section(resource);
  const [rows] = tables(body);
  if (!rows) throw new Error(`the spec gives no field table for '${resource}'`);
  const leaves: Leaf[] = [];
  for (const row of rows) {
    const notes = row.Notes ?? '';
    for (const field of row.Field!.split(', ')) {
      const type = row.Type!;
      if (type !== 'array') {
        const format = /format (\S+)/.exec(notes)?.[1] ?? null;
        leaves.push({ path: field, type: type as LeafType, range: statedRange(notes), format });
      } else if (/^notes\.\w+$/.test(field)) {
        if (!body.includes('The entries of the notes arrays are note names (strings).'))
          throw new Error('the note pyramid lost its item type');
        leaves.push({ path: `${field}[]`, type: 'string', range: null, format: null });
      } else {
        for (const item of itemFields(notes))
          leaves.push({ path: `${field.replace(/\[\]$/, '')}[].${item.name}`, ...item, format: null });
      }
    }
  }
  return leaves;
}

/**
 * Integer parameter bounds, per endpoint heading (`GET /v1/notes`) and parameter name, from
 * its parameter table's Rules (or its `Query:` sentence): [min, max], null where unstated.
 */
export function integerBounds(heading: string): Record<string, [number | null, number | null]> {
  const body = section(heading);
  const out: Record<string, [number | null, number | null]> = {};
  const read = (name: string, rules: string) => {
    const between = /(?:^|[ ,|])(\d+) to (\d+)/.exec(rules);
    const atLeast = /at least (\d+)/.exec(rules);
    const max = /maximum (\d+)/.exec(rules);
    out[name] = between
      ? [Number(between[1]), Number(between[2])]
      : [atLeast ? Number(atLeast[1]) : null, max ? Number(max[1]) : null];
  };
  for (const table of tables(body))
    for (const row of table) {
      const name = row['Query parameter'] ?? row.Parameter ?? row.Field ?? '';
      if (row.Type === 'integer' && row.In !== 'path') read(name, row.Rules ?? '');
    }
  const query = /^Query: (.+)\. Response/m.exec(body)?.[1];
  if (query) for (const m of query.matchAll(/(\w+) \(integer(?:, ([^)]*))?\)/g)) read(m[1]!, m[2] ?? '');
  return out;
}
