/**
 * The primitives of the hand-written fast checks (src/api/fast-check.ts for responses,
 * src/warehouse/fast-check.ts for items): plain loops that only look at a parsed value.
 */
export type Obj = Record<string, unknown>;

/** An object literal as JSON.parse makes it (not an array, not a class instance). */
export function isPlainObject(x: unknown): x is Obj {
  return typeof x === 'object' && x !== null && Object.getPrototypeOf(x) === Object.prototype;
}

export const isStr = (x: unknown): x is string => typeof x === 'string';

/** An array whose every element passes `ok`. */
export function every(list: unknown, ok: (e: unknown) => boolean): boolean {
  if (!Array.isArray(list)) return false;
  for (const e of list) if (!ok(e)) return false;
  return true;
}
