import type { KeelConfig } from '../config/config-schema';

/**
 * How a compatible endpoint streams: `live` (tokens as they come; a failure after the first byte
 * is an in-band error and the stream ends without its terminal event) or `buffered` (the stream
 * starts once an attempt completed, so a cut or stalled attempt is retried invisibly). The
 * request's `x-keel-stream-mode` header wins over `compat.streamMode`; any other value of it is
 * `undefined` (the endpoint answers `400`).
 */
export type StreamMode = 'live' | 'buffered';

export function streamModeOf(
  header: string | string[] | undefined,
  config: KeelConfig,
): StreamMode | undefined {
  if (header === undefined) return config.compat.streamMode;
  const value = Array.isArray(header) ? header[0] : header;
  if (value === 'live' || value === 'buffered') return value;
  return undefined;
}
