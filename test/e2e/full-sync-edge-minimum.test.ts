import { describe, expect, it } from 'vitest';
import { endpointByTemplate } from '../../src/domain/endpoints.ts';
import { pagesFor } from '../../src/plan/cost-model.ts';
import { startSimulator } from '../../src/simulator/index.ts';
import { formatSummary } from '../../src/sync/summary-text.ts';
import { bullmq, inProcess } from '../helpers/drivers.ts';
import { expectExact } from '../helpers/exact.ts';
import { governedFiles } from '../helpers/governed.ts';

/**
 * The edge reading's listings name some entries twice (the fragrance list and the brand
 * catalogues: src/simulator/edges.ts `listing`), so a list holds more entries than there are
 * items and a full walk reads every page its pagination.total makes. This catalogue (132
 * fragrances, seed 2) is one where that costs pages: the fragrance list is 151 entries
 * (4 pages, not the 3 of 132 items) and one brand lists its 46 fragrances as 53 entries
 * (2 pages, not 1). The cheapest full sync the summary states must count those pages, so a
 * full sync that buys nothing twice shows calls and cents equal to it, endpoint by endpoint:
 * cost ratio exactly 1 (before: 1 call and 1 cent short per such list, printed as 1.000).
 */
const files = governedFiles();

describe.each([inProcess, bullmq])('edge values: the minimum counts every listed page, $name', (driver) => {
  it('a full sync costs exactly the minimum: ratio 1, calls per endpoint equal', async () => {
    const sim = await startSimulator({ fragrances: 132, seed: 2, variant: { edgeValues: true } });
    const dbPath = files.path(`${driver === bullmq ? 'bullmq' : 'memory'}-edge-min.duckdb`);
    try {
      const summary = await driver.sync(sim, dbPath);
      expect(summary.status).toBe('completed');
      await expectExact(sim, dbPath);

      // The catalogue has the edge this test is about (else it proves nothing): list pages
      // beyond what the items alone make.
      const truth = sim.groundTruth();
      const calls = Object.fromEntries(
        summary.byEndpoint.map((e) => [endpointByTemplate(e.endpoint) ?? e.endpoint, e.calls]),
      );
      expect(calls.listFragrances).toBeGreaterThan(pagesFor(truth.fragrances.length));
      const brandPages = Object.values(truth.brandCatalogues).reduce((n, l) => n + pagesFor(l.length), 0);
      expect(calls.getBrandFragrances).toBeGreaterThan(brandPages);

      const minimum = Object.fromEntries(
        Object.entries(summary.minimum.byEndpoint).map(([name, c]) => [name, c.calls]),
      );
      expect(calls).toEqual(minimum);
      expect(summary.failedCalls).toBe(0);
      expect(summary.calls).toBe(summary.minimum.calls);
      expect(summary.cents).toBe(summary.minimum.cents);
      expect(summary.costRatio).toBe(1);
      expect(formatSummary(summary)).toMatch(/cost ratio: 1\.000(?!\d)/);
    } finally {
      await sim.close();
    }
  }, 180_000);
});
