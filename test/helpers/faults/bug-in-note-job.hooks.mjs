// Module hooks for bug-in-note-job.mjs: jobs/note.ts resolves to a module whose processor
// dereferences undefined.
const BUGGY =
  'data:text/javascript,' +
  encodeURIComponent(`
export async function note(_ctx, payload) {
  const entity = undefined;
  return entity.notes[payload.slug];
}
`);

export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (resolved.url.endsWith('/jobs/note.ts')) return { url: BUGGY, format: 'module', shortCircuit: true };
  return resolved;
}
