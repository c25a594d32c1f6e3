/** The value below which a fraction `q` of `values` falls (nearest rank). */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[index] as number;
}

export interface Summary {
  n: number;
  p10: number;
  p50: number;
  p90: number;
  p99: number;
}

export function summarize(values: readonly number[]): Summary {
  return {
    n: values.length,
    p10: quantile(values, 0.1),
    p50: quantile(values, 0.5),
    p90: quantile(values, 0.9),
    p99: quantile(values, 0.99),
  };
}

/** Milliseconds with a precision that suits their size. */
export function ms(value: number): string {
  if (!Number.isFinite(value)) return '–';
  if (value >= 100) return value.toFixed(0);
  if (value >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

export function ratio(value: number, baseline: number): string {
  if (!Number.isFinite(value) || !Number.isFinite(baseline) || baseline === 0) return '–';
  return `${(value / baseline).toFixed(2)}×`;
}

/** `p10–p90` of a summary, in ms. */
export function spread(summary: Summary): string {
  return `${ms(summary.p10)}–${ms(summary.p90)}`;
}

export function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}
