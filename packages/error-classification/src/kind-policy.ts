import { ERROR_KINDS, type ErrorKind, isErrorKind } from './error-kind';

/** One step of the orchestrator's default reaction to a kind, in order. */
export type KindAction =
  | 'stop'
  | 'retry_same'
  | 'rotate_profile'
  | 'fallback_model'
  | 'compact_and_retry'
  | 'resend'
  | 'final';

/** The default policy facts for one kind (DESIGN.md, "The error taxonomy"). */
export interface KindPolicy {
  /** "Retry same target?": may the same model and profile be tried again. */
  readonly retryable: boolean;
  /** Wait for `retryAfterMs` (when known) before the same target is tried again. */
  readonly honorRetryAfter: boolean;
  /** What the orchestrator does by default, in order, until one succeeds. */
  readonly actions: readonly KindAction[];
  /** Upper bound on profile rotations for this kind; `undefined` means no kind-specific bound. */
  readonly maxProfileRotations?: number;
  /** Whether this kind may use up fallback candidates. */
  readonly burnsFallback: boolean;
}

const POLICIES: { readonly [K in ErrorKind]: KindPolicy } = {
  caller_abort: {
    retryable: false,
    honorRetryAfter: false,
    actions: ['stop'],
    burnsFallback: false,
  },
  provider_abort: {
    retryable: true,
    honorRetryAfter: false,
    actions: ['retry_same', 'fallback_model'],
    burnsFallback: true,
  },
  connection: {
    retryable: true,
    honorRetryAfter: false,
    actions: ['retry_same', 'fallback_model'],
    burnsFallback: true,
  },
  timeout: {
    retryable: true,
    honorRetryAfter: false,
    actions: ['retry_same', 'fallback_model'],
    burnsFallback: true,
  },
  rate_limit: {
    retryable: true,
    honorRetryAfter: true,
    actions: ['rotate_profile', 'fallback_model'],
    burnsFallback: true,
  },
  overloaded: {
    retryable: false,
    honorRetryAfter: true,
    actions: ['rotate_profile', 'fallback_model'],
    maxProfileRotations: 1,
    burnsFallback: true,
  },
  server_error: {
    retryable: true,
    honorRetryAfter: true,
    actions: ['retry_same', 'fallback_model'],
    burnsFallback: true,
  },
  auth: {
    retryable: false,
    honorRetryAfter: false,
    actions: ['rotate_profile', 'fallback_model'],
    burnsFallback: true,
  },
  billing: {
    retryable: false,
    honorRetryAfter: false,
    actions: ['rotate_profile', 'fallback_model'],
    burnsFallback: true,
  },
  context_overflow: {
    retryable: false,
    honorRetryAfter: false,
    actions: ['compact_and_retry', 'final'],
    burnsFallback: false,
  },
  invalid_request: {
    retryable: false,
    honorRetryAfter: false,
    actions: ['final'],
    burnsFallback: false,
  },
  model_not_found: {
    retryable: false,
    honorRetryAfter: false,
    actions: ['fallback_model'],
    burnsFallback: true,
  },
  content_policy: {
    retryable: false,
    honorRetryAfter: false,
    actions: ['final'],
    burnsFallback: false,
  },
  session_takeover: {
    retryable: false,
    honorRetryAfter: false,
    actions: ['resend'],
    burnsFallback: false,
  },
  coordination: {
    retryable: false,
    honorRetryAfter: false,
    actions: ['final'],
    burnsFallback: false,
  },
  // The store failed, not the model: another model or profile would fail the same way.
  storage: {
    retryable: false,
    honorRetryAfter: false,
    actions: ['final'],
    burnsFallback: false,
  },
  unknown: { retryable: false, honorRetryAfter: false, actions: ['final'], burnsFallback: false },
};

/** A frozen copy of `table` without a prototype: `"constructor"` or `"__proto__"` find nothing. */
function freezeDeeply(table: { readonly [K in ErrorKind]: KindPolicy }): {
  readonly [K in ErrorKind]: KindPolicy;
} {
  const frozen = Object.create(null) as { [K in ErrorKind]: KindPolicy };
  for (const kind of ERROR_KINDS) {
    const policy = table[kind];
    frozen[kind] = Object.freeze({ ...policy, actions: Object.freeze([...policy.actions]) });
  }
  return Object.freeze(frozen);
}

/**
 * Default policy per kind. The orchestrator reads this; applications may override it there.
 * Deeply frozen, and without a prototype, so a key that is not a kind finds `undefined`.
 */
export const KIND_POLICY: { readonly [K in ErrorKind]: KindPolicy } = freezeDeeply(POLICIES);

/** "Retry same target?" for a kind: true for transient kinds, false otherwise (non-kinds too). */
export function isRetryable(kind: ErrorKind): boolean {
  return isErrorKind(kind) && KIND_POLICY[kind].retryable;
}
