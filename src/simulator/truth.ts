/**
 * The whole catalogue exactly as the API would return it (limits at their maximum), so a
 * test can compare a warehouse with it. Meant for test-sized catalogues: at 120k fragrances
 * it materializes every review and similar list, which takes a while and a lot of memory.
 */
import type { Catalogue } from './catalogue.ts';
import type { GroundTruth } from './types.ts';

export function groundTruth(cat: Catalogue, serviceDate: string): GroundTruth {
  const live = cat.fragranceList();
  const truth: GroundTruth = {
    fragrances: live.map((f) => cat.profile(f)),
    reviews: {},
    similar: {},
    wearing: {},
    // A brand or perfumer no fragrance ever named cannot be found (the API lists neither):
    // it is not part of what a mirror can hold. One whose fragrances were all discontinued
    // was named once, and stays.
    brands: cat.data.brands.filter((b) => b.fragrances.length > 0).map((b) => cat.brandView(b)),
    brandCatalogues: {},
    perfumers: cat.data.perfumers.filter((p) => p.fragrances.length > 0).map((p) => cat.perfumerView(p)),
    // In the note list's order, as paging GET /v1/notes meets them.
    notes: cat.noteList().flatMap((n) => {
      const rec = cat.note(n.slug);
      return rec ? [cat.noteView(rec)] : [];
    }),
    accords: cat.accordList().map((a) => ({ ...a })),
    charts: cat.chartList().flatMap((c) => cat.chart(c.slug) ?? []),
    serviceDate,
  };
  for (const f of live) {
    truth.reviews[f.id] = cat.reviews(f, 0, cat.reviewTotal(f));
    truth.similar[f.id] = cat.similar(f).slice(0, 50);
    truth.wearing[f.id] = cat.wearing(f);
  }
  for (const b of cat.data.brands)
    if (b.fragrances.length > 0) truth.brandCatalogues[b.slug] = cat.brandCatalogue(b);
  // A deep copy: callers may mutate it, and it must not alias the live catalogue.
  return structuredClone(truth);
}
