/** Response headers as the SDKs expose them: a `Headers` object or a plain record. */
export type HeadersLike =
  | { get(name: string): string | null | undefined }
  | Readonly<Record<string, string | readonly string[] | number | null | undefined>>;

export interface ParseRetryAfterOptions {
  /** Current time in ms since the epoch, for HTTP-date values. Default `Date.now()`. */
  now?: number;
  /** Largest wait kept, in ms. Default 60 000 (DESIGN.md: "within 0–60 s"). */
  maxMs?: number;
}

const DEFAULT_MAX_MS = 60_000;

function isHeadersObject(headers: HeadersLike): headers is { get(name: string): string | null } {
  return typeof (headers as { get?: unknown }).get === 'function';
}

/** Reads one header case-insensitively from a `Headers` object or a plain record. */
export function readHeader(
  headers: HeadersLike | null | undefined,
  name: string,
): string | undefined {
  if (headers === null || headers === undefined || typeof headers !== 'object') return undefined;
  if (isHeadersObject(headers)) {
    try {
      const value = headers.get(name);
      return typeof value === 'string' ? value : undefined;
    } catch {
      return undefined;
    }
  }
  const record = headers as Readonly<Record<string, unknown>>;
  const wanted = name.toLowerCase();
  for (const key of Object.keys(record)) {
    if (key.toLowerCase() !== wanted) continue;
    const value = record[key];
    if (typeof value === 'string') return value;
    if (typeof value === 'number') return String(value);
    if (Array.isArray(value) && typeof value[0] === 'string') return value[0];
  }
  return undefined;
}

const DECIMAL = /^\d+(?:\.\d+)?$/;

function nonNegative(ms: number): number | undefined {
  return Number.isFinite(ms) && ms >= 0 ? Math.round(ms) : undefined;
}

/**
 * The wait the headers ask for, in ms, however long: `retry-after-ms` first, then `retry-after`
 * as seconds or an HTTP date. `undefined` when absent, unparsable or negative (a past date).
 */
export function requestedWaitMs(
  headers: HeadersLike | null | undefined,
  now: number,
): number | undefined {
  const milliseconds = readHeader(headers, 'retry-after-ms')?.trim();
  if (milliseconds && DECIMAL.test(milliseconds)) return nonNegative(Number(milliseconds));
  const value = readHeader(headers, 'retry-after')?.trim();
  if (!value) return undefined;
  if (DECIMAL.test(value)) return nonNegative(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : nonNegative(date - now);
}

/**
 * The wait a provider asks for, in ms: `retry-after-ms` first, then `retry-after` as seconds or
 * an HTTP date. `undefined` when absent, unparsable, negative or above `maxMs` (default 60 s).
 * (`classifyError` reports a longer wait as `cooldownMs`.)
 */
export function parseRetryAfter(
  headers: HeadersLike | null | undefined,
  options: ParseRetryAfterOptions = {},
): number | undefined {
  const ms = requestedWaitMs(headers, options.now ?? Date.now());
  return ms !== undefined && ms <= (options.maxMs ?? DEFAULT_MAX_MS) ? ms : undefined;
}
