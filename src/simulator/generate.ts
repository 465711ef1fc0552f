/**
 * Deterministic catalogue generation. Proportions follow public fragrance databases
 * (~120k fragrances, ~7k brands, ~2.8k perfumers, ~2.4k notes, ~90 accords) scaled down
 * for small catalogues, with floors so every kind of record exists in a 300-item test.
 */
import * as W from './data/words.ts';
import type { AccordRec, BrandRec, CatalogueData, FragranceRec, NoteRec, PerfumerRec } from './model.ts';
import {
  int,
  mix,
  mulberry32,
  pick,
  round,
  shuffle,
  slugify,
  weighted,
  zipfTable,
  type Rng,
} from './prng.ts';
import type { SimulatorVariant } from './types.ts';
import { buildCharts } from './charts.ts';

const SUB_RESOURCE_WORDS = new Set([
  'reviews',
  'similar',
  'wearing-stats',
  'review-digest',
  'compare',
  'batch',
  'enrich',
]);

export interface GenerateOptions {
  fragrances: number;
  seed: number;
  variant: SimulatorVariant;
  /** Epoch day of the newest generated review (the day before the service starts). */
  anchorDay: number;
}

export function generateCatalogue(opts: GenerateOptions): CatalogueData {
  const rng = mulberry32(mix(opts.seed, 1));
  const n = opts.fragrances;
  const accords = makeAccords();
  const data: CatalogueData = {
    seed: opts.seed,
    variant: opts.variant,
    fragrances: [],
    brands: makeBrands(rng, Math.max(5, Math.round((n * 7000) / 120000))),
    perfumers: makePerfumers(rng, Math.max(3, Math.round((n * 2800) / 120000))),
    notes: makeNotes(rng, Math.max(30, Math.round(n * 0.02))),
    accords: accords.list,
    accordGroups: accords.groups,
    charts: [],
    accordBuckets: accords.list.map(() => []),
    issued: new Set(),
  };
  const ctx = makeContext(data);
  for (let i = 0; i < n; i++) addFragrance(data, ctx, rng, opts.anchorDay);
  // Guarantee the awkward cases exist in every catalogue, however small.
  const [, none, many, dup] = data.fragrances;
  if (none) none.baseReviews = 0;
  if (many) many.baseReviews = 520 + int(rng, 0, 200);
  if (dup) dup.baseReviews = Math.max(dup.baseReviews, 30);
  data.charts = buildCharts(data, 0, opts.anchorDay, false);
  return data;
}

export interface GenContext {
  brandZipf: Float64Array;
  perfumerZipf: Float64Array;
  noteZipf: Float64Array;
}

export function makeContext(data: CatalogueData): GenContext {
  return {
    brandZipf: zipfTable(data.brands.length, 0.8),
    perfumerZipf: zipfTable(data.perfumers.length, 0.8),
    noteZipf: zipfTable(data.notes.length, 0.7),
  };
}

/** A release from a given house: its brand, perfumer and a note it must carry. */
export interface Pinned {
  brand: number;
  perfumer: number;
  note: number;
}

/** Appends one fragrance (also used by churn for new releases, `pin` for a new house's). */
export function addFragrance(
  data: CatalogueData,
  ctx: GenContext,
  rng: Rng,
  anchorDay: number,
  pin?: Pinned,
): FragranceRec {
  const idx = data.fragrances.length;
  const brand = data.brands[pin ? pin.brand : weighted(rng, ctx.brandZipf)] as BrandRec;
  const perfumer = data.perfumers[pin ? pin.perfumer : weighted(rng, ctx.perfumerZipf)] as PerfumerRec;
  const name = fragranceName(rng);
  let local = slugify(name, `no-${idx}`);
  if (SUB_RESOURCE_WORDS.has(local)) local = `${local}-edition`;
  let slug = `${brand.slug}/${local}`;
  for (let k = 2; data.issued.has(slug); k++) slug = `${brand.slug}/${local}-${k}`;
  data.issued.add(slug);
  let id = slug;
  if (data.variant.idStyle === 'opaque') {
    do
      id = `f_${Math.floor(rng() * 36 ** 6)
        .toString(36)
        .padStart(6, '0')}`;
    while (data.issued.has(id));
    data.issued.add(id);
  }
  const used = new Set<number>(pin ? [pin.note] : []);
  let pinnedNote = pin?.note;
  const drawNotes = (count: number): number[] => {
    const out: number[] = pinnedNote === undefined ? [] : [pinnedNote];
    pinnedNote = undefined;
    for (let tries = 0; out.length < count && tries < 50; tries++) {
      const note = weighted(rng, ctx.noteZipf);
      if (!used.has(note)) {
        used.add(note);
        out.push(note);
      }
    }
    return out;
  };
  const { accords, strengths, norm } = drawAccords(rng, data);
  const r = rng();
  const baseReviews =
    r < 0.06
      ? 0
      : r < 0.95
        ? Math.min(200, Math.floor(-Math.log(1 - rng()) * 25))
        : r < 0.985
          ? int(rng, 200, 500)
          : int(rng, 501, 900);
  const rec: FragranceRec = {
    idx,
    id,
    slug,
    name,
    brand: brand.idx,
    perfumer: perfumer.idx,
    year: int(rng, 1921, 2025),
    score: round(Math.min(5, Math.max(1, 2.6 + (rng() + rng() + rng()) * 0.8)), 2),
    top: drawNotes(int(rng, 1, 4)),
    middle: drawNotes(int(rng, 1, 4)),
    base: drawNotes(int(rng, 1, 4)),
    accords,
    strengths,
    norm,
    priceRange: pick(rng, ['BUDGET', 'MIDRANGE', 'PREMIUM'] as const),
    seed: mix(data.seed, idx, 77),
    baseReviews,
    reviewAnchorDay: anchorDay,
    similarTarget: rng() < 0.08 ? int(rng, 1, 11) : int(rng, 40, 50),
    // From the record's own seed, not the shared stream: adding it changed no catalogue.
    popularity: basePopularity(mix(data.seed, idx, 77)),
    added: [],
    removed: false,
  };
  data.fragrances.push(rec);
  brand.fragrances.push(idx);
  perfumer.fragrances.push(idx);
  for (const note of [...rec.top, ...rec.middle, ...rec.base]) data.notes[note]?.fragrances.push(idx);
  for (const a of accords.slice(0, 2)) data.accordBuckets[a]?.push(idx);
  return rec;
}

/** Heavy-tailed (a few fragrances are far more popular than most), 1 to ~1000. */
function basePopularity(seed: number): number {
  const u = mulberry32(mix(seed, 5))();
  return round(1 / (0.001 + u * 0.999) ** 0.9, 2);
}

export function drawAccords(
  rng: Rng,
  data: CatalogueData,
): { accords: number[]; strengths: number[]; norm: number } {
  const group = pick(rng, data.accordGroups);
  const count = int(rng, 3, 7);
  const chosen = new Set<number>();
  for (let tries = 0; chosen.size < count && tries < 40; tries++) {
    chosen.add(rng() < 0.75 ? pick(rng, group) : int(rng, 0, data.accords.length - 1));
  }
  const accords = [...chosen];
  const strengths = accords.map((_, i) => (i === 0 ? 1 : round(0.25 + rng() * 0.7, 2))).sort((a, b) => b - a);
  const norm = Math.sqrt(strengths.reduce((s, x) => s + x * x, 0));
  return { accords, strengths, norm };
}

function fragranceName(rng: Rng): string {
  const r = rng();
  if (r < 0.03) return pick(rng, W.FRAGRANCE_CJK);
  const base = `${pick(rng, W.FRAGRANCE_FIRST)} ${pick(rng, W.FRAGRANCE_SECOND)}${pick(rng, W.FRAGRANCE_FLANKERS)}`;
  return r < 0.05 ? `${base} ${pick(rng, W.FRAGRANCE_EMOJI)}` : base;
}

function makeAccords(): { list: AccordRec[]; groups: number[][] } {
  const list: AccordRec[] = [];
  const groups = W.ACCORD_FAMILIES.map((fam) =>
    fam.accords.map((name) => {
      list.push({ idx: list.length, slug: slugify(name, `accord-${list.length}`), name });
      return list.length - 1;
    }),
  );
  return { list, groups };
}

/** Unique names from combinations; a counter suffix only if the combinations run out. */
function uniqueNames(count: number, rng: Rng, make: (rng: Rng) => string): string[] {
  const seen = new Set<string>();
  const slugs = new Set<string>();
  const out: string[] = [];
  for (let tries = 0; out.length < count; tries++) {
    let name = make(rng);
    if (tries > count * 20) name = `${name} ${tries}`;
    const slug = slugify(name, `x-${out.length}`);
    if (seen.has(name) || slugs.has(slug)) continue;
    seen.add(name);
    slugs.add(slug);
    out.push(name);
  }
  return out;
}

function makeBrands(rng: Rng, count: number): BrandRec[] {
  const names = uniqueNames(count, rng, (r) =>
    `${pick(r, W.BRAND_PREFIXES)} ${pick(r, W.BRAND_WORDS)}${pick(r, W.BRAND_SUFFIXES)}`.trim(),
  );
  return names.map((name, idx) => ({
    idx,
    slug: slugify(name, `brand-${idx}`),
    name,
    country: pick(rng, W.COUNTRIES),
    description: `${name} is a perfume house founded in ${int(rng, 1850, 2020)}, known for ${pick(rng, W.FRAGRANCE_FIRST).toLowerCase()} compositions.`,
    fragrances: [],
  }));
}

function makePerfumers(rng: Rng, count: number): PerfumerRec[] {
  const names = uniqueNames(count, rng, (r) => `${pick(r, W.FIRST_NAMES)} ${pick(r, W.LAST_NAMES)}`);
  return names.map((name, idx) => ({
    idx,
    slug: slugify(name, `perfumer-${idx}`),
    name,
    nationality: pick(rng, W.NATIONALITIES),
    bio: `${name} trained in Grasse and has composed for houses around the world since ${int(rng, 1970, 2020)}.`,
    fragrances: [],
  }));
}

function makeNotes(rng: Rng, count: number): NoteRec[] {
  const bases = shuffle(rng, [...W.NOTE_BASES]);
  const names: { name: string; family: string }[] = [];
  const slugs = new Set<string>();
  const push = (name: string, family: string): void => {
    const slug = slugify(name, `note-${names.length}`);
    if (names.length < count && !slugs.has(slug)) {
      slugs.add(slug);
      names.push({ name, family });
    }
  };
  for (const b of bases) push(b.name, b.family);
  for (let round = 0; names.length < count && round < 20_000; round++) {
    const b = pick(rng, bases);
    if (rng() < 0.6) push(`${pick(rng, W.NOTE_PREFIXES)} ${b.name}`, b.family);
    else push(`${b.name} ${pick(rng, W.NOTE_SUFFIXES)}`, b.family);
  }
  for (let k = 0; names.length < count; k++) push(`Note ${k}`, 'other');
  return names.map(({ name, family }, idx) => ({
    idx,
    slug: slugify(name, `note-${idx}`),
    name,
    family,
    description: `${name} belongs to the ${family} family; perfumers use it for its ${pick(rng, W.MOODS)} character.`,
    fragrances: [],
  }));
}
