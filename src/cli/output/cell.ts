import stringWidth from 'string-width';

/**
 * Cell text for a terminal: NULL as NULL, control characters made visible (a newline in a
 * review must not break the table's row), widths in terminal columns (a CJK character takes
 * two), and values cut with an ellipsis without splitting a character.
 */

export const NULL_TEXT = 'NULL';
export const ELLIPSIS = '…';

const segmenter = new Intl.Segmenter();

const ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

export function cellText(value: unknown): string {
  if (value === null || value === undefined) return NULL_TEXT;
  const text = String(value);
  return text.replace(/\p{Cc}/gu, (c) => ESCAPES[c] ?? `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

export function widthOf(text: string): number {
  return stringWidth(text);
}

/** `text` in at most `width` columns: whole characters, then '…' when something was cut. */
export function fit(text: string, width: number): string {
  if (widthOf(text) <= width) return text;
  if (width <= 0) return '';
  let out = '';
  let used = 0;
  for (const { segment } of segmenter.segment(text)) {
    const w = widthOf(segment);
    if (used + w > width - 1) break;
    out += segment;
    used += w;
  }
  return `${out}${ELLIPSIS}`;
}

/** The output's width: --width, else the terminal's, else $COLUMNS, else `fallback`. */
export function outputWidth(
  flag: number | undefined,
  stream: { isTTY?: boolean; columns?: number },
  env: NodeJS.ProcessEnv,
  fallback: number,
): number {
  if (flag !== undefined) return flag;
  if (stream.isTTY && stream.columns) return stream.columns;
  const columns = Number(env.COLUMNS);
  return Number.isInteger(columns) && columns > 0 ? columns : fallback;
}
