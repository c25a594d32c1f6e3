import { createSessionFence } from '@keel/session-fence';
import type { FenceCallOptions, SessionFence, SessionStorage } from '@keel/spec';

/** One `release` or `reacquire` a turn made, with the signal it passed. */
export interface FenceCall {
  method: 'release' | 'reacquire';
  signal: AbortSignal | undefined;
  abortedAtCall: boolean;
}

/**
 * Real fences over `storage()` whose `release` and `reacquire` are written down in `calls`;
 * `failRelease` (when it returns an error) makes a release throw it instead of letting go.
 */
export function recordedFences(
  storage: () => SessionStorage,
  calls: FenceCall[],
  failRelease: () => Error | undefined = () => undefined,
) {
  return (sessionId: string): SessionFence => {
    const fence = createSessionFence({ storage: storage(), sessionId });
    return new Proxy(fence, {
      get(target, property) {
        const value: unknown = Reflect.get(target, property, target);
        if (property !== 'release' && property !== 'reacquire') {
          return typeof value === 'function' ? value.bind(target) : value;
        }
        return async (options?: FenceCallOptions) => {
          calls.push({
            method: property,
            signal: options?.signal,
            abortedAtCall: options?.signal?.aborted === true,
          });
          const failure = property === 'release' ? failRelease() : undefined;
          if (failure !== undefined) throw failure;
          return property === 'release' ? target.release(options) : target.reacquire(options);
        };
      },
    });
  };
}
