/**
 * A loopback proxy in front of a provider that can hold the next request until the test lets it
 * go: a model call that stays in flight exactly as long as the test needs (no timing guess). Every
 * other request is forwarded at once, as it came (`@keel/testing`'s `forwardTo`, whose hook holds a
 * request by returning a promise).
 */
import { forwardTo } from '@keel/testing';

/** One held request: `arrived` once it came, forwarded once `release()` is called. */
export interface HeldRequest {
  readonly arrived: Promise<void>;
  release(): void;
}

export interface HeldUpstream {
  /** The proxy's base URL, with the target's path. */
  readonly baseUrl: string;
  /** Holds the next request that arrives. */
  holdNext(): HeldRequest;
  close(): Promise<void>;
}

/** Starts the proxy in front of `target` (a base URL). */
export async function holdUpstream(target: string): Promise<HeldUpstream> {
  const holds: Array<{ came: () => void; released: Promise<void> }> = [];
  const releases = new Set<() => void>();
  const proxy = await forwardTo(target, () => {
    const hold = holds.shift();
    if (hold === undefined) return undefined;
    hold.came();
    return hold.released;
  });
  return {
    baseUrl: proxy.baseUrl,
    holdNext() {
      let came!: () => void;
      let release!: () => void;
      const arrived = new Promise<void>((resolve) => {
        came = resolve;
      });
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      releases.add(release);
      holds.push({ came, released });
      return { arrived, release };
    },
    close() {
      for (const release of releases) release();
      return proxy.close();
    },
  };
}
