import { getMetricsFromIterator, type PromData, type PromHistogramData, type PromMetrics } from 'prom2javascript';

/**
 * A scrape parsed by a real Prometheus text-format parser (prom2javascript), and sums over its
 * samples whose labels include `labels`: `total` of a counter or gauge, `histogram` of a
 * histogram's count and sum. A metric missing from the scrape fails the test.
 */
export async function parseScrape(text: string) {
  const metrics: PromMetrics = await getMetricsFromIterator(text.split('\n')[Symbol.iterator]());
  const matching = <T extends { labels: Record<string, string> }>(name: string, labels: Record<string, string>): T[] => {
    const metric = metrics[name];
    if (!metric) throw new Error(`no metric ${name} in the scrape`);
    return (metric.data as unknown as T[]).filter((sample) => Object.entries(labels).every(([key, value]) => (sample.labels[key] ?? '') === value));
  };
  return {
    metrics,
    total: (name: string, labels: Record<string, string> = {}) => matching<PromData>(name, labels).reduce((sum, sample) => sum + sample.value, 0),
    histogram: (name: string, labels: Record<string, string> = {}) =>
      matching<PromHistogramData>(name, labels).reduce((acc, sample) => ({ count: acc.count + sample.count, sum: acc.sum + (sample.sum ?? 0) }), { count: 0, sum: 0 }),
    samples: <T extends { labels: Record<string, string> } = PromData>(name: string, labels: Record<string, string> = {}) => matching<T>(name, labels),
  };
}
