import type { ModelCallOptions, ModelEvent, ModelRequest } from '@keel/spec';
import type { Transport } from './types';

const PIN = Symbol.for('keel.transport.retryPin');

interface PinnedTransport extends Transport {
  readonly [PIN]: { inner: Transport; maxRetries: number };
}

function pinOf(transport: Transport): PinnedTransport[typeof PIN] | undefined {
  return (transport as Partial<PinnedTransport>)[PIN];
}

/**
 * A transport whose every call runs with at most `maxRetries` SDK retries, applied last: neither
 * the transport's configuration nor a per-call `maxRetries` can widen it. Pinning a pinned
 * transport re-pins the inner one (no stacked wrappers) and keeps the smaller limit.
 */
export function withRetryPin(transport: Transport, maxRetries: number): Transport {
  if (!Number.isInteger(maxRetries) || maxRetries < 0) {
    throw new RangeError(
      `withRetryPin: maxRetries must be a non-negative integer, got ${maxRetries}.`,
    );
  }
  const existing = pinOf(transport);
  const inner = existing?.inner ?? transport;
  const pinned = Math.min(maxRetries, existing?.maxRetries ?? maxRetries);
  const result: PinnedTransport = {
    specificationVersion: inner.specificationVersion,
    api: inner.api,
    capabilities: inner.capabilities,
    provider: inner.provider,
    [PIN]: { inner, maxRetries: pinned },
    stream(request: ModelRequest, options?: ModelCallOptions): AsyncIterable<ModelEvent> {
      return inner.stream(request, { ...options, maxRetries: pinned });
    },
  };
  return result;
}

/** The retry limit a transport is pinned to, or `undefined` when it is not pinned. */
export function retryPinOf(transport: Transport): number | undefined {
  return pinOf(transport)?.maxRetries;
}
