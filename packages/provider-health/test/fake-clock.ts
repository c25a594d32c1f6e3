/** A clock whose time moves only when a test moves it. */
export interface FakeClock {
  now(): number;
  advance(ms: number): void;
}

export function createFakeClock(start = Date.UTC(2026, 10, 30, 12)): FakeClock {
  let now = start;
  return {
    now: () => now,
    advance(ms) {
      now += ms;
    },
  };
}
