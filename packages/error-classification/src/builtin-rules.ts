import type { ClassifierRule } from './classifier-rule';
import {
  AUTH_CODES,
  AUTH_TEXT,
  BILLING_CODES,
  BILLING_TEXT,
  CONNECTION_CODES,
  CONNECTION_TEXT,
  CONTENT_POLICY_CODES,
  CONTENT_POLICY_TEXT,
  CONTEXT_OVERFLOW_CODES,
  CONTEXT_OVERFLOW_TEXT,
  INVALID_REQUEST_CODES,
  INVALID_REQUEST_TEXT,
  MODEL_NOT_FOUND_CODES,
  MODEL_NOT_FOUND_TEXT,
  OVERLOADED_CODES,
  OVERLOADED_TEXT,
  PROVIDER_ABORT_CODES,
  PROVIDER_ABORT_TEXT,
  RATE_LIMIT_CODES,
  RATE_LIMIT_TEXT,
  SERVER_ERROR_CODES,
  SERVER_ERROR_TEXT,
  STORAGE_CODES,
  TIMEOUT_CODES,
  TIMEOUT_TEXT,
  TRANSIENT_SERVER_CODES,
  TRUNCATED_JSON_TEXT,
} from './error-patterns';
import { findCode, isThrottle, matched, mentions } from './rule-helpers';

/**
 * The caller's own aborted signal decides before anything else, application rules included:
 * a stopped caller is never retried, whatever the error says (CONTRIBUTING.md, "Errors").
 */
export const CALLER_ABORT_RULE: ClassifierRule = {
  name: 'caller-abort',
  match: (_error, { signal }) => (signal?.aborted ? 'caller_abort' : undefined),
};

/**
 * The built-in rules after the caller-abort one, in precedence order. Traps are ordered on
 * purpose: billing and content policy beat their statuses (429 / 400), overload wording beats
 * 503, throttles are never context overflow, and transport wording only counts when there is no
 * HTTP status.
 */
export const BUILTIN_RULES: readonly ClassifierRule[] = [
  {
    name: 'keel-kind',
    match: (_error, { facts }) => facts.keelKind,
  },
  {
    // A disk that is full or read-only (a store that did not wrap its error): never an HTTP reply.
    name: 'storage-code',
    match: (_error, { facts }) => {
      if (facts.status !== undefined) return undefined;
      const code = findCode(facts, STORAGE_CODES);
      return code === undefined ? undefined : matched('storage', code);
    },
  },
  {
    name: 'billing',
    match: (_error, { facts }) => {
      const code = findCode(facts, BILLING_CODES);
      if (code !== undefined) return matched('billing', code);
      if (facts.status === 402) return 'billing';
      // Gemini words its per-minute RESOURCE_EXHAUSTED like OpenAI's insufficient_quota.
      const googleThrottle = facts.codes.includes('RESOURCE_EXHAUSTED');
      return mentions(facts, BILLING_TEXT) && !googleThrottle ? 'billing' : undefined;
    },
  },
  {
    name: 'content-policy',
    match: (_error, { facts }) => {
      const code = findCode(facts, CONTENT_POLICY_CODES);
      if (code !== undefined) return matched('content_policy', code);
      return mentions(facts, CONTENT_POLICY_TEXT) ? 'content_policy' : undefined;
    },
  },
  {
    name: 'transient-server-code',
    match: (_error, { facts }) => {
      // Bedrock's ModelNotReadyException arrives as a 429 but is a cold start, not a throttle.
      const code = findCode(facts, TRANSIENT_SERVER_CODES);
      return code === undefined ? undefined : matched('server_error', code);
    },
  },
  {
    name: 'invalid-request-wording',
    match: (_error, { facts }) =>
      mentions(facts, INVALID_REQUEST_TEXT) ? 'invalid_request' : undefined,
  },
  {
    name: 'context-overflow',
    match: (_error, { facts }) => {
      if (isThrottle(facts)) return undefined;
      const code = findCode(facts, CONTEXT_OVERFLOW_CODES);
      if (code !== undefined) return matched('context_overflow', code);
      if (facts.status === 413) return 'context_overflow';
      return mentions(facts, CONTEXT_OVERFLOW_TEXT) ? 'context_overflow' : undefined;
    },
  },
  {
    name: 'model-not-found',
    match: (_error, { facts }) => {
      const code = findCode(facts, MODEL_NOT_FOUND_CODES);
      if (code !== undefined) return matched('model_not_found', code);
      if (facts.status === 404 || mentions(facts, MODEL_NOT_FOUND_TEXT)) return 'model_not_found';
      return undefined;
    },
  },
  {
    name: 'overloaded',
    match: (_error, { facts }) => {
      const code = findCode(facts, OVERLOADED_CODES);
      if (code !== undefined) return matched('overloaded', code);
      if (facts.status === 529 || facts.status === 498) return 'overloaded';
      return mentions(facts, OVERLOADED_TEXT) ? 'overloaded' : undefined;
    },
  },
  {
    name: 'rate-limit',
    match: (_error, { facts }) => {
      const code = findCode(facts, RATE_LIMIT_CODES);
      if (code !== undefined) return matched('rate_limit', code);
      if (facts.status === 429 || mentions(facts, RATE_LIMIT_TEXT)) return 'rate_limit';
      return undefined;
    },
  },
  {
    name: 'auth',
    match: (_error, { facts }) => {
      const code = findCode(facts, AUTH_CODES);
      if (code !== undefined) return matched('auth', code);
      if (facts.status === 401 || facts.status === 403 || mentions(facts, AUTH_TEXT)) return 'auth';
      return undefined;
    },
  },
  {
    name: 'timeout',
    match: (_error, { facts }) => {
      const code = findCode(facts, TIMEOUT_CODES);
      if (code !== undefined) return matched('timeout', code);
      if (facts.status === 408) return 'timeout';
      return facts.status === undefined && mentions(facts, TIMEOUT_TEXT) ? 'timeout' : undefined;
    },
  },
  {
    name: 'provider-abort',
    match: (_error, { facts }) => {
      if (findCode(facts, CONNECTION_CODES) !== undefined) return undefined;
      const code = findCode(facts, PROVIDER_ABORT_CODES);
      if (code !== undefined) return matched('provider_abort', code);
      return facts.status === undefined && mentions(facts, PROVIDER_ABORT_TEXT)
        ? 'provider_abort'
        : undefined;
    },
  },
  {
    name: 'connection',
    match: (_error, { facts }) => {
      const code = findCode(facts, CONNECTION_CODES);
      if (code !== undefined) return matched('connection', code);
      if (facts.status === 499) return 'connection';
      if (facts.status !== undefined) return undefined;
      if (mentions(facts, CONNECTION_TEXT)) return 'connection';
      // A body cut short: the SDK's JSON.parse fails on what arrived before the connection ended.
      const truncatedBody =
        facts.names.includes('SyntaxError') && mentions(facts, TRUNCATED_JSON_TEXT);
      return truncatedBody ? 'connection' : undefined;
    },
  },
  {
    name: 'server-error',
    match: (_error, { facts }) => {
      if (facts.status !== undefined && (facts.status >= 500 || facts.status === 409)) {
        return matched('server_error', findCode(facts, SERVER_ERROR_CODES));
      }
      const code = findCode(facts, SERVER_ERROR_CODES);
      if (code !== undefined) return matched('server_error', code);
      return facts.status === undefined && mentions(facts, SERVER_ERROR_TEXT)
        ? 'server_error'
        : undefined;
    },
  },
  {
    name: 'invalid-request',
    match: (_error, { facts }) => {
      if (facts.status !== undefined && facts.status >= 400 && facts.status < 500) {
        return matched('invalid_request', findCode(facts, INVALID_REQUEST_CODES));
      }
      const code = findCode(facts, INVALID_REQUEST_CODES);
      return code === undefined ? undefined : matched('invalid_request', code);
    },
  },
];
