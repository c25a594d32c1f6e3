import { setTimeout as delay } from 'node:timers/promises';
import type { Clock } from '@keel/spec';

/** The real clock: `Date.now()` and an abortable timer. */
export function createSystemClock(): Clock {
  return {
    now: () => Date.now(),
    async sleep(ms, signal) {
      await delay(Math.max(0, ms), undefined, signal === undefined ? undefined : { signal });
    },
  };
}
