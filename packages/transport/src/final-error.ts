import { TransportAbortError, type TransportTimeoutError } from './transport-error';

/**
 * The error a failed call throws: the caller's abort first (never a timeout, even when a clock
 * fired too), then the clock that ran out, else the failure itself.
 */
export function finalError(
  error: unknown,
  state: { signal: AbortSignal | undefined; timeout: TransportTimeoutError | undefined },
): unknown {
  if (state.signal?.aborted === true) {
    return new TransportAbortError({
      message: 'The model call was aborted by the caller.',
      cause: error,
    });
  }
  return state.timeout ?? error;
}
