import { setTimeout as delay } from 'node:timers/promises';
import type { Clock } from '@keel/spec';

/**
 * The real clock: `Date.now()` and an abortable sleep that wakes no earlier than `now() + ms`.
 * A Node timer counts on a monotonic clock and now and then fires a millisecond before
 * `Date.now()` has moved `ms` on: a cooldown slept on one timer could wake while the plan, reading
 * `now()`, still sees the profile cooling (and ends the turn with the one wait it had).
 */
export function createSystemClock(): Clock {
  const now = () => Date.now();
  return {
    now,
    async sleep(ms, signal) {
      const until = now() + Math.max(0, ms);
      const options = signal === undefined ? undefined : { signal };
      do await delay(Math.max(0, until - now()), undefined, options);
      while (now() < until);
    },
  };
}
