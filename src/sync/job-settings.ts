import type { JobSettings } from '../../jobs/types.ts';
import type { Config } from '../config/index.ts';

/** What the jobs are told of the config: the datasets to fetch (src/config stays above jobs/). */
export function jobSettings(config: Config): JobSettings {
  const d = config.datasets;
  return {
    reviews: { mode: d.reviews.mode, newest: d.reviews.newest },
    similar: d.similar,
    wearing: d.wearing,
    reviewDigest: d.reviewDigest,
    brands: d.brands,
    perfumers: d.perfumers,
  };
}
