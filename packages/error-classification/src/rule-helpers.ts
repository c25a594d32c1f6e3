import type { RuleMatch } from './classifier-rule';
import type { ErrorFacts } from './collect-error-facts';
import type { ErrorKind } from './error-kind';

/** The first code or name of `facts` in `wanted` (case-insensitive), as the error spelled it. */
export function findCode(facts: ErrorFacts, wanted: ReadonlySet<string>): string | undefined {
  for (const code of facts.codes) if (wanted.has(code.toLowerCase())) return code;
  for (const name of facts.names) if (wanted.has(name.toLowerCase())) return name;
  return undefined;
}

/** A lower-cased set, for `findCode`. */
export function codeSet(...codes: string[]): ReadonlySet<string> {
  return new Set(codes.map((code) => code.toLowerCase()));
}

/** True when any message, code or name matches. */
export function mentions(facts: ErrorFacts, pattern: RegExp): boolean {
  return pattern.test(facts.text);
}

/** A match that reports the code which decided it. */
export function matched(kind: ErrorKind, code: string | undefined): RuleMatch {
  return code === undefined ? kind : { kind, code };
}

/** Whether the error is some kind of rate or quota throttle (used to keep traps apart). */
export function isThrottle(facts: ErrorFacts): boolean {
  return (
    facts.status === 429 ||
    findCode(facts, THROTTLE_CODES) !== undefined ||
    mentions(
      facts,
      /rate limit|tokens per (?:min|day)|\(tpm\)|throttl|please wait before trying again/,
    )
  );
}

const THROTTLE_CODES = codeSet(
  'rate_limit_error',
  'rate_limit_exceeded',
  'ThrottlingException',
  'RESOURCE_EXHAUSTED',
);
