/**
 * A brand-new house opening on a simulated day: a brand nobody has seen, the perfumer who
 * composed its first release, and a note no fragrance carried before. A sync learns of all
 * three only through that release (its profile names the brand, the perfumer and the note),
 * which is what a nightly must follow to be complete.
 */
import * as W from './data/words.ts';
import type { BrandRec, CatalogueData, NoteRec, PerfumerRec } from './model.ts';
import { int, pick, slugify, type Rng } from './prng.ts';
import type { Pinned } from './generate.ts';

/** A name whose slug is not taken; a numbered name once the word lists run out. */
function freshName(rng: Rng, taken: Set<string>, make: () => string, fallback: string): string {
  for (let tries = 0; tries < 200; tries++) {
    const name = make();
    if (!taken.has(slugify(name, fallback))) return name;
  }
  for (let k = 2; ; k++) {
    const name = `${make()} ${k}`;
    if (!taken.has(slugify(name, fallback))) return name;
  }
}

export function openHouse(data: CatalogueData, rng: Rng, year: number): Pinned {
  const brandSlugs = new Set(data.brands.map((b) => b.slug));
  const brandName = freshName(
    rng,
    brandSlugs,
    () => `${pick(rng, W.BRAND_PREFIXES)} ${pick(rng, W.BRAND_WORDS)}${pick(rng, W.BRAND_SUFFIXES)}`.trim(),
    `brand-${data.brands.length}`,
  );
  const brand: BrandRec = {
    idx: data.brands.length,
    slug: slugify(brandName, `brand-${data.brands.length}`),
    name: brandName,
    country: pick(rng, W.COUNTRIES),
    description: `${brandName} is a perfume house founded in ${year}, new to the catalogue.`,
    fragrances: [],
  };
  data.brands.push(brand);

  const perfumerSlugs = new Set(data.perfumers.map((p) => p.slug));
  const perfumerName = freshName(
    rng,
    perfumerSlugs,
    () => `${pick(rng, W.FIRST_NAMES)} ${pick(rng, W.LAST_NAMES)}`,
    `perfumer-${data.perfumers.length}`,
  );
  const perfumer: PerfumerRec = {
    idx: data.perfumers.length,
    slug: slugify(perfumerName, `perfumer-${data.perfumers.length}`),
    name: perfumerName,
    nationality: pick(rng, W.NATIONALITIES),
    bio: `${perfumerName} composed ${brandName}'s first fragrance after ${int(rng, 3, 20)} years in the trade.`,
    fragrances: [],
  };
  data.perfumers.push(perfumer);

  const noteSlugs = new Set(data.notes.map((n) => n.slug));
  const base = pick(rng, W.NOTE_BASES);
  const noteName = freshName(
    rng,
    noteSlugs,
    () => `${pick(rng, W.NOTE_PREFIXES)} ${base.name} ${pick(rng, W.NOTE_SUFFIXES)}`,
    `note-${data.notes.length}`,
  );
  const note: NoteRec = {
    idx: data.notes.length,
    slug: slugify(noteName, `note-${data.notes.length}`),
    name: noteName,
    family: base.family,
    description: `${noteName}, a ${base.family} material first used by ${brandName}.`,
    fragrances: [],
  };
  data.notes.push(note);
  return { brand: brand.idx, perfumer: perfumer.idx, note: note.idx };
}
