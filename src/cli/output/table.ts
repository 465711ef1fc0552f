import Table from 'cli-table3';
import type { ResultColumn } from '../../warehouse/result-stream.ts';
import { ELLIPSIS, fit, widthOf } from './cell.ts';

/**
 * A result as the DuckDB shell's box: column names over their types, NULL as NULL, numbers
 * right-aligned, values cut with an ellipsis so that the table fits `width` columns (columns
 * in the middle give way to a '…' column when even that is not enough), and a footer with
 * the row and column counts, saying how many were shown when rows were left out. Drawing is
 * cli-table3's; the layout (how wide each column may be) is decided here.
 */

export interface TableInput {
  columns: readonly ResultColumn[];
  /** Cell texts (cellText) of the first rows shown, then of the last rows shown. */
  head: readonly (readonly string[])[];
  tail: readonly (readonly string[])[];
  /** Rows in the result. */
  total: number;
  /** Terminal columns the table may take. */
  width: number;
  /** Columns (by name) never cut: the table grows past `width` rather than cut them. */
  whole?: readonly string[];
}

/** Narrowest a cut column gets (three letters and the ellipsis, or a short value whole). */
const MIN_COLUMN = 4;
/** A column's name is kept whole up to this width before the column is cut further. */
const MAX_NAME_FLOOR = 12;
/** Each column costs its border and one space of padding either side beyond its content. */
const COLUMN_COST = 3;

interface Shown {
  /** Index into the result's columns, or -1 for the '…' column of columns left out. */
  index: number;
  width: number;
}

export function renderTable(input: TableInput): string {
  const rows = [...input.head, ...input.tail];
  const natural = input.columns.map((c, i) =>
    Math.max(widthOf(c.name), widthOf(c.type), ...rows.map((r) => widthOf(r[i] ?? ''))),
  );
  const isWhole = input.columns.map((c) => input.whole?.includes(c.name) === true);
  // A column keeps room for its name (up to a point) before it is cut further: fewer columns
  // whose names can be read beat many that cannot.
  const floor = input.columns.map((c, i) =>
    isWhole[i]
      ? natural[i]!
      : Math.min(natural[i]!, Math.max(MIN_COLUMN, Math.min(widthOf(c.name), MAX_NAME_FLOOR))),
  );
  // The whole columns get room beside `width`, so the others are laid out as they would be
  // without them; and at least every floor, so none is cut or gives way to the '…' column.
  const wholeRoom = natural.reduce((s, n, i) => s + (isWhole[i] ? n + COLUMN_COST : 0), 0);
  const floors = floor.reduce((s, f) => s + f, 0) + 1 + COLUMN_COST * floor.length;
  const width = wholeRoom > 0 ? Math.max(input.width + wholeRoom, floors) : input.width;
  const shown = layout(natural, floor, width);
  const footer = footerText(input, shown.filter((s) => s.index >= 0).length);
  // The footer spans the table: a narrow table grows to hold it, as far as the width allows.
  const inner = () => shown.reduce((s, c) => s + c.width, 0) + COLUMN_COST * (shown.length - 1);
  const last = shown[shown.length - 1]!;
  last.width += Math.max(0, Math.min(widthOf(footer) - inner(), width - 4 - inner()));

  const table = new Table({
    colWidths: shown.map((s) => s.width + 2),
    wordWrap: false,
    style: { head: [], border: [], 'padding-left': 1, 'padding-right': 1 },
    // No line between rows; the lines under the header and over the footer are added below.
    chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
  });
  const columnOf = (s: Shown) => input.columns[s.index];
  table.push(
    shown.map((s) => ({
      content:
        s.index < 0 ? ELLIPSIS : `${fit(columnOf(s)!.name, s.width)}\n${fit(columnOf(s)!.type, s.width)}`,
      hAlign: 'center' as const,
    })),
  );
  const rowOf = (r: readonly string[]) =>
    shown.map((s) =>
      s.index < 0
        ? { content: ELLIPSIS, hAlign: 'center' as const }
        : {
            content: fit(r[s.index] ?? '', s.width),
            hAlign: columnOf(s)!.numeric ? ('right' as const) : ('left' as const),
          },
    );
  for (const r of input.head) table.push(rowOf(r));
  if (rows.length < input.total) {
    for (let i = 0; i < 3; i++) table.push(shown.map(() => ({ content: '·', hAlign: 'center' as const })));
  }
  for (const r of input.tail) table.push(rowOf(r));
  table.push([{ colSpan: shown.length, content: fit(footer, inner()), hAlign: 'left' }]);

  const lines = table.toString().split('\n');
  const top = lines[0]!;
  const rule = (cross: string) => `├${top.slice(1, -1).replace(/┬/g, cross)}┤`;
  const body = lines.slice(3, -2).filter((l) => l.startsWith('│'));
  const bodyLines = body.length > 0 ? [rule('┼'), ...body] : [];
  return [top, lines[1], lines[2], ...bodyLines, rule('┴'), ...lines.slice(-2)].join('\n');
}

function footerText(input: TableInput, columnsShown: number): string {
  const rowsShown = input.head.length + input.tail.length;
  const rows = `${input.total} ${input.total === 1 ? 'row' : 'rows'}${rowsShown < input.total ? ` (${rowsShown} shown)` : ''}`;
  const n = input.columns.length;
  const cols = `${n} ${n === 1 ? 'column' : 'columns'}${columnsShown < n ? ` (${columnsShown} shown)` : ''}`;
  return `${rows}  ${cols}`;
}

/**
 * How wide each column may be. All at their natural width when that fits; else the widest
 * are cut first, down to a common cap (never below their floor); when even the floors do not
 * fit, the middle columns give way to one '…' column.
 */
function layout(natural: readonly number[], floor: readonly number[], width: number): Shown[] {
  const budget = (k: number) => width - 1 - COLUMN_COST * k; // content room for k columns
  let indices = natural.map((_, i) => i);
  const sumOf = (ix: number[], f: (i: number) => number) => ix.reduce((s, i) => s + f(i), 0);
  if (sumOf(indices, (i) => floor[i]!) > budget(indices.length)) {
    // Keep as many columns from both ends as fit beside a '…' column (of content width 1).
    let left = 0;
    let right = 0;
    let used = 1;
    for (let turn = 0; left + right < natural.length; turn++) {
      const i = turn % 2 === 0 ? left : natural.length - 1 - right;
      if (used + floor[i]! > budget(left + right + 2)) break;
      used += floor[i]!;
      if (turn % 2 === 0) left++;
      else right++;
    }
    indices = [...indices.slice(0, left), -1, ...indices.slice(natural.length - right)];
  }
  const real = indices.filter((i) => i >= 0);
  const room = budget(indices.length) - (indices.includes(-1) ? 1 : 0);
  const widths = new Map(real.map((i) => [i, natural[i]!]));
  if (sumOf(real, (i) => natural[i]!) > room) {
    // The largest cap at which the columns fit, then what is left to the cut columns in turn.
    const at = (cap: number) => sumOf(real, (i) => Math.max(floor[i]!, Math.min(natural[i]!, cap)));
    let lo = 0;
    let hi = Math.max(...real.map((i) => natural[i]!));
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (at(mid) <= room) lo = mid;
      else hi = mid - 1;
    }
    for (const i of real) widths.set(i, Math.max(floor[i]!, Math.min(natural[i]!, lo)));
    let spare = room - at(lo);
    for (const i of real) {
      if (spare <= 0) break;
      if (natural[i]! > widths.get(i)!) {
        widths.set(i, widths.get(i)! + 1);
        spare--;
      }
    }
  }
  return indices.map((i) => ({ index: i, width: i < 0 ? 1 : widths.get(i)! }));
}
