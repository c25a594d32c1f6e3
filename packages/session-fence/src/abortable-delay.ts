import { setTimeout as delay } from 'node:timers/promises';

/**
 * Resolves after `ms`; on abort rejects at once with the signal's own reason (not the generic
 * AbortError `timers/promises` raises), so callers see what they aborted with.
 */
export async function abortableDelay(ms: number, signal?: AbortSignal): Promise<void> {
  try {
    await delay(ms, undefined, signal === undefined ? undefined : { signal });
  } catch (error) {
    signal?.throwIfAborted();
    throw error;
  }
}
