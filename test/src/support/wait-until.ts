import { setTimeout as delay } from 'node:timers/promises';

/**
 * Polls `check` until it holds. No time limit of its own: the test's timeout is the limit, so a
 * slow machine only makes the test slower, never wrong.
 */
export async function waitUntil(
  what: string,
  check: () => boolean | Promise<boolean>,
): Promise<void> {
  for (let round = 0; ; round += 1) {
    if (await check()) return;
    await delay(Math.min(200, 10 + round * 10));
    if (round === 3000) throw new Error(`still waiting for ${what}`);
  }
}
