/**
 * The live catalogue: lookups and the API's views of every resource. Derived lists (orders,
 * top-N, similar lists) are cached per catalogue version; any mutation bumps the version,
 * so a handler never does more than O(page) work on a warm cache.
 */
import { applyChurn, type DayChanges } from './churn.ts';
import { ReviewCache, reviewSlice, reviewTotal, wearingStats } from './derived.ts';
import { Edges } from './edges.ts';
import { generateCatalogue, makeContext, type GenContext, type GenerateOptions } from './generate.ts';
import type { BrandRec, CatalogueData, ChartRec, FragranceRec, NoteRec, PerfumerRec } from './model.ts';
import { fold, mix, mulberry32, shuffle } from './prng.ts';
import { Lru } from './lru.ts';
import { AccordMatrix, computeSimilar } from './similar.ts';
import { ListEpochs } from './similar-lists.ts';
import type * as T from './types.ts';
import type { ChangeModel } from './types.ts';

export class Catalogue {
  readonly data: CatalogueData;
  version = 0;
  private readonly ctx: GenContext;
  private readonly byKey = new Map<string, FragranceRec>();
  private brandBySlug = new Map<string, BrandRec>();
  private perfumerBySlug = new Map<string, PerfumerRec>();
  private noteBySlug = new Map<string, NoteRec>();
  private readonly reviewCache = new ReviewCache();
  /** The edge reading's changes to the views (identity unless the variant asks for it). */
  readonly edges: Edges;
  private cache = new Map<string, unknown>();
  /** Bounded: a full crawl of a 120k catalogue would otherwise keep 6M similar entries. */
  private readonly similarCache = new Lru<number, T.SimilarEntry[]>(4096);
  /** The change model's similarLists: which day's catalogue a list is computed from. */
  private readonly lists = new ListEpochs();
  /** Live fragrances sorted by id, kept up to date incrementally: sorting 120k ids is slow. */
  private byId: FragranceRec[];

  constructor(opts: GenerateOptions) {
    this.data = generateCatalogue(opts);
    this.edges = new Edges(this.data.variant.edgeValues);
    this.ctx = makeContext(this.data);
    for (const f of this.data.fragrances) this.index(f);
    this.indexNamed();
    // The default sort compares UTF-16 code units, as `<` does, and is the fastest here.
    const ids = this.data.fragrances.map((f) => f.id).sort();
    this.byId = ids.map((id) => this.byKey.get(id) as FragranceRec);
  }

  /** Brands, perfumers and notes by slug (a new house adds one of each). */
  private indexNamed(): void {
    this.brandBySlug = new Map(this.data.brands.map((b) => [b.slug, b]));
    this.perfumerBySlug = new Map(this.data.perfumers.map((p) => [p.slug, p]));
    this.noteBySlug = new Map(this.data.notes.map((n) => [n.slug, n]));
  }

  private index(f: FragranceRec): void {
    this.byKey.set(f.id, f);
    this.byKey.set(f.slug, f);
  }

  private cached<V>(key: string, make: () => V): V {
    let v = this.cache.get(key) as V | undefined;
    if (v === undefined) {
      v = make();
      this.cache.set(key, v);
    }
    return v;
  }

  /** A live fragrance by id or by its two-segment slug. */
  find(id: string): FragranceRec | undefined {
    const f = this.byKey.get(id);
    return f && !f.removed ? f : undefined;
  }

  brandName = (f: FragranceRec): string => (this.data.brands[f.brand] as BrandRec).name;

  summary(f: FragranceRec): T.FragranceSummary {
    return { id: f.id, name: f.name, brand: this.brandName(f) };
  }

  profile(f: FragranceRec): T.FragranceProfile {
    const brand = this.data.brands[f.brand] as BrandRec;
    const perfumer = this.data.perfumers[f.perfumer] as PerfumerRec;
    const noteName = (i: number): string => (this.data.notes[i] as NoteRec).name;
    const live = (i: number): boolean => !(this.data.fragrances[i] as FragranceRec).removed;
    return this.edges.profile(this.plainProfile(f, brand, perfumer, noteName), f, perfumer, live);
  }

  private plainProfile(
    f: FragranceRec,
    brand: BrandRec,
    perfumer: PerfumerRec,
    noteName: (i: number) => string,
  ): T.FragranceProfile {
    return {
      id: f.id,
      name: f.name,
      brand: brand.name,
      brandSlug: brand.slug,
      perfumer: perfumer.name,
      perfumerSlug: perfumer.slug,
      year: f.year,
      score: f.score,
      notes: { top: f.top.map(noteName), middle: f.middle.map(noteName), base: f.base.map(noteName) },
      accords: f.accords.map((a, i) => ({
        name: this.data.accords[a]?.name ?? '',
        strength: f.strengths[i] ?? 0,
      })),
    };
  }

  reviewTotal(f: FragranceRec): number {
    return reviewTotal(f);
  }

  reviews(f: FragranceRec, offset: number, limit: number): T.Review[] {
    return this.edges.reviews(reviewSlice(f, this.reviewCache, offset, limit), f, offset, reviewTotal(f));
  }

  similar(f: FragranceRec): T.SimilarEntry[] {
    const list = this.similarCache.get(f.idx, () => {
      const m = this.lists.matrixFor(f, () => this.cached('matrix', () => new AccordMatrix(this.data)));
      const computed = computeSimilar(this.data, m, f, this.brandName);
      // A fixed list loses what was discontinued since its day, and takes in nothing.
      return this.lists.fixed ? computed.filter((e) => this.find(e.id)) : computed;
    });
    return this.edges.similar(list, f);
  }

  wearing(f: FragranceRec): T.WearingStats {
    return this.edges.wearing(wearingStats(f), f);
  }

  /** Applies the variant's list order; 'shuffled' is stable within one catalogue version. */
  private ordered<V>(salt: number, items: V[], key: (v: V) => string): V[] {
    const order = this.data.variant.listOrder;
    if (order === 'shuffled') return shuffle(mulberry32(mix(this.data.seed, this.version, salt)), items);
    const dir = order === 'reverse' ? -1 : 1;
    return items.sort((a, b) => (key(a) < key(b) ? -dir : key(a) > key(b) ? dir : 0));
  }

  fragranceList(): FragranceRec[] {
    return this.cached('list', () => {
      const order = this.data.variant.listOrder;
      if (order === 'id') return this.byId;
      if (order === 'reverse') return [...this.byId].reverse();
      return this.ordered(1, [...this.byId], (f) => f.id);
    });
  }

  /** Accent-free lower-case names aligned with fragranceList(), for search. */
  foldedNames(): string[] {
    return this.cached('folded', () => this.fragranceList().map((f) => fold(f.name)));
  }

  private top(idxs: number[], n: number): FragranceRec[] {
    return idxs
      .map((i) => this.data.fragrances[i] as FragranceRec)
      .filter((f) => !f.removed)
      .sort((a, b) => b.score - a.score || a.idx - b.idx)
      .slice(0, n);
  }

  brand(slug: string): BrandRec | undefined {
    return this.brandBySlug.get(slug);
  }

  brandView(b: BrandRec): T.Brand {
    const top = this.cached(`btop:${b.idx}`, () => this.top(b.fragrances, 10));
    const view = {
      slug: b.slug,
      name: b.name,
      country: b.country,
      description: b.description,
      topFragrances: top.map((f) => ({ id: f.id, name: f.name, score: f.score })),
    };
    return this.edges.brand(view, b.idx);
  }

  brandCatalogue(b: BrandRec): { id: string; name: string }[] {
    return this.cached(`bcat:${b.idx}`, () =>
      this.ordered(
        2,
        b.fragrances.map((i) => this.data.fragrances[i] as FragranceRec).filter((f) => !f.removed),
        (f) => f.id,
      ).map((f) => ({ id: f.id, name: f.name })),
    );
  }

  perfumer(slug: string): PerfumerRec | undefined {
    return this.perfumerBySlug.get(slug);
  }

  perfumerView(p: PerfumerRec): T.Perfumer {
    const top = this.cached(`ptop:${p.idx}`, () => this.top(p.fragrances, 10));
    const view = {
      slug: p.slug,
      name: p.name,
      nationality: p.nationality,
      bio: p.bio,
      topCreations: top.map((f) => ({ id: f.id, name: f.name, brand: this.brandName(f), score: f.score })),
    };
    return this.edges.perfumer(view, p.idx);
  }

  note(slug: string): NoteRec | undefined {
    return this.noteBySlug.get(slug);
  }

  noteView(n: NoteRec): T.Note {
    const top = this.cached(`ntop:${n.idx}`, () => this.top(n.fragrances, 10));
    const view = {
      slug: n.slug,
      name: n.name,
      family: n.family,
      description: n.description,
      topFragrances: top.map((f) => ({ id: f.id, name: f.name, brand: this.brandName(f), score: f.score })),
    };
    return this.edges.note(view, n.idx);
  }

  noteList(): { slug: string; name: string; family: string }[] {
    return this.cached('notes', () =>
      this.ordered(3, [...this.data.notes], (n) => n.slug).map((n) => ({
        slug: n.slug,
        name: n.name,
        family: n.family,
      })),
    );
  }

  accordList(): T.AccordFamily[] {
    return this.cached('accords', () =>
      this.ordered(4, [...this.data.accords], (a) => a.slug).map((a) => ({ slug: a.slug, name: a.name })),
    );
  }

  chartList(): { slug: string; title: string }[] {
    return this.data.charts.map((c) => ({ slug: c.slug, title: this.edges.chartTitle(c.slug, c.title) }));
  }

  chart(slug: string): T.Chart | undefined {
    const c: ChartRec | undefined = this.data.charts.find((x) => x.slug === slug);
    if (!c) return undefined;
    const entries = c.members
      .map((i) => this.data.fragrances[i] as FragranceRec)
      .filter((f) => !f.removed)
      .map((f, i) => ({ rank: i + 1, id: f.id, name: f.name, brand: this.brandName(f), score: f.score }));
    return this.edges.chart({ slug: c.slug, title: c.title, entries });
  }

  /** New reviews arrive at the top of the list (the spec: ordering shifts as reviews are added). */
  addReviews(f: FragranceRec, count: number, date: string): void {
    const rng = mulberry32(mix(f.seed, 9, f.added.length));
    const fresh: T.Review[] = [];
    for (let i = 0; i < count; i++) {
      const rating = (1 + Math.floor(rng() * 10)) / 2;
      fresh.push({
        rating,
        text: rng() < 0.4 ? null : `Fresh impression #${f.added.length + count - i}.`,
        date,
      });
    }
    f.added.unshift(...fresh);
  }

  /** A day passes on a live catalogue, as the change model says (churn.ts). */
  churn(day: number, model: ChangeModel): DayChanges {
    this.lists.beforeDay(model.similarLists, this.data);
    this.version++;
    const changes = applyChurn(this, this.ctx, day, model);
    this.lists.afterDay(changes, this.data, this.version);
    const added = changes.added;
    this.indexNamed();
    const byId = this.byId.filter((f) => !f.removed);
    for (const f of added) {
      this.index(f);
      let lo = 0;
      let hi = byId.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if ((byId[mid] as FragranceRec).id < f.id) lo = mid + 1;
        else hi = mid;
      }
      byId.splice(lo, 0, f);
    }
    this.byId = byId;
    this.cache = new Map();
    this.similarCache.clear();
    return changes;
  }
}
