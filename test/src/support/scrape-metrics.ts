/** What a gateway's `/metrics` says, as `name{labels}` → value (Prometheus text format). */
export async function scrapeMetrics(gateway: {
  fetch(path: string): Promise<Response>;
}): Promise<Map<string, number>> {
  const text = await (await gateway.fetch('/metrics')).text();
  const values = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const cut = line.lastIndexOf(' ');
    values.set(line.slice(0, cut), Number(line.slice(cut + 1)));
  }
  return values;
}

/** The sum of every series of the metric `name` (0 when it has none). */
export function metricTotal(values: ReadonlyMap<string, number>, name: string): number {
  let total = 0;
  for (const [series, value] of values) if (series.startsWith(`${name}{`)) total += value;
  return total;
}
