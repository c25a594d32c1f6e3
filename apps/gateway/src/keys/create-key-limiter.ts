// A key's own rate limits over a sliding minute: `rpm` counts the requests admitted, `tpm` the
// tokens (input + output) its calls reported. A request is refused with the wait until the
// minute frees enough, so the client's `Retry-After` is when a retry can pass.

const MINUTE_MS = 60_000;

export interface KeyLimiterOptions {
  rpm?: number;
  tpm?: number;
  /** Clock ms; default `Date.now`. */
  now?: () => number;
}

export type Admission =
  | { admitted: true }
  | { admitted: false; limit: 'rpm' | 'tpm'; retryAfterMs: number };

export interface KeyLimiter {
  /** Admits one request now (and counts it), or says which limit refuses it and for how long. */
  admit(): Admission;
  /** Tokens a call of this key reported, counted at the time it ended. */
  recordTokens(tokens: number): void;
  /** The last minute: requests admitted and tokens reported. */
  lastMinute(): { requests: number; tokens: number };
}

export function createKeyLimiter(options: KeyLimiterOptions): KeyLimiter {
  const now = options.now ?? Date.now;
  /** Admission times, oldest first. */
  const requests: number[] = [];
  /** Reported tokens with their times, oldest first. */
  const tokens: Array<{ at: number; tokens: number }> = [];
  let tokenSum = 0;

  const forget = (at: number) => {
    const since = at - MINUTE_MS;
    while (requests.length > 0 && (requests[0] as number) <= since) requests.shift();
    while (tokens.length > 0 && (tokens[0] as { at: number }).at <= since) {
      tokenSum -= (tokens.shift() as { tokens: number }).tokens;
    }
  };

  return {
    admit() {
      const at = now();
      forget(at);
      if (options.rpm !== undefined && requests.length >= options.rpm) {
        // The oldest admissions leave the minute one by one: wait for the one that makes room.
        const freeing = requests[requests.length - options.rpm] as number;
        return { admitted: false, limit: 'rpm', retryAfterMs: freeing + MINUTE_MS - at };
      }
      if (options.tpm !== undefined && tokenSum >= options.tpm) {
        let left = tokenSum;
        let freeAt = at;
        for (const entry of tokens) {
          left -= entry.tokens;
          freeAt = entry.at + MINUTE_MS;
          if (left < options.tpm) break;
        }
        return { admitted: false, limit: 'tpm', retryAfterMs: freeAt - at };
      }
      requests.push(at);
      return { admitted: true };
    },
    recordTokens(count) {
      if (count <= 0) return;
      const at = now();
      forget(at);
      tokens.push({ at, tokens: count });
      tokenSum += count;
    },
    lastMinute() {
      forget(now());
      return { requests: requests.length, tokens: tokenSum };
    },
  };
}
