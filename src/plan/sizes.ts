import type { WalkState } from '../warehouse/state-types.ts';

/**
 * The mark of a walk that carries its total and page size. The paged walks (the fragrance
 * list, the notes: jobs/fragrances-page.ts, notes-page.ts) mark each page as `<name>@<page>`,
 * page 1 with the total; the others (accords, charts, brand catalogues) one mark under their
 * name.
 */
export function walkMark(walks: readonly WalkState[], name: string): WalkState | undefined {
  return walks.find((w) => w.walk === name) ?? walks.find((w) => w.walk === `${name}@1`);
}
