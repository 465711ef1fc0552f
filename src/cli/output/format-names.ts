/** The result formats of `query` and `runs` (kept apart so the command table loads no renderer). */
export const FORMATS = ['table', 'csv', 'json', 'jsonl', 'markdown'] as const;
export type Format = (typeof FORMATS)[number];
