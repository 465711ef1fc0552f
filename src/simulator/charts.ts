/**
 * Curated charts. They are rebuilt on every simulated day with churn (reshuffled, removed
 * fragrances dropped, trending by the day's popularity), and a day may add one dated chart
 * (the change model's newChartChance), because the spec says new charts appear over time and
 * slugs must be taken from the chart list.
 */
import type { CatalogueData, ChartRec, FragranceRec } from './model.ts';
import { isoDate, mix, mulberry32, shuffle } from './prng.ts';

function live(data: CatalogueData): FragranceRec[] {
  return data.fragrances.filter((f) => !f.removed);
}

function byScore(a: FragranceRec, b: FragranceRec): number {
  return b.score - a.score || a.idx - b.idx;
}

export function buildCharts(
  data: CatalogueData,
  version: number,
  day: number,
  newChart: boolean,
): ChartRec[] {
  const rng = mulberry32(mix(data.seed, version, 4242));
  const all = live(data);
  const idxs = (list: FragranceRec[]): number[] => list.map((f) => f.idx);
  const topRated = [...all].sort(byScore).slice(0, 50);
  const mostReviewed = [...all]
    .sort((a, b) => b.baseReviews + b.added.length - (a.baseReviews + a.added.length) || byScore(a, b))
    .slice(0, 50);
  const newest = Math.max(...all.map((f) => f.year), 0);
  const releases = all
    .filter((f) => f.year >= newest - 3)
    .sort(byScore)
    .slice(0, 25);
  // Popularity with the day's noise: the popular ones trend, not always in the same order.
  const heat = new Map(all.map((f) => [f, f.popularity * (0.5 + rng())]));
  const trending = [...all]
    .sort((a, b) => (heat.get(b) as number) - (heat.get(a) as number) || a.idx - b.idx)
    .slice(0, 30);
  const gems = shuffle(
    rng,
    all.filter((f) => f.score >= 4),
  ).slice(0, 20);
  const charts: ChartRec[] = [
    { slug: 'top-rated', title: 'Top Rated of All Time', members: idxs(topRated) },
    { slug: 'most-reviewed', title: 'Most Reviewed', members: idxs(mostReviewed) },
    { slug: 'new-releases', title: 'Best New Releases', members: idxs(releases) },
    { slug: 'trending-now', title: 'Trending Now', members: idxs(trending) },
    { slug: 'hidden-gems', title: 'Hidden Gems ✨', members: idxs(gems) },
  ];
  // Dated charts from earlier days stay, minus fragrances removed since.
  for (const old of data.charts.slice(charts.length)) {
    charts.push({ ...old, members: old.members.filter((i) => data.fragrances[i]?.removed === false) });
  }
  if (version > 0 && newChart) {
    const date = isoDate(day);
    charts.push({
      slug: `editors-picks-${date}`,
      title: `Editors’ Picks — ${date}`,
      members: idxs(shuffle(rng, [...all]).slice(0, 20)),
    });
  }
  return charts;
}
