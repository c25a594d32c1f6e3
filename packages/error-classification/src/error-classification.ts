import type { ErrorKind } from './error-kind';

/** Providers the classifier can recognise from an error's body, headers or wording. */
export type ProviderName =
  | 'anthropic'
  | 'openai'
  | 'azure'
  | 'google'
  | 'bedrock'
  | 'openrouter'
  | 'groq'
  | 'deepseek'
  | 'ollama'
  | 'openai-compatible';

/** Every `ProviderName`, as a record so that the compiler keeps it complete. */
const PROVIDER_NAMES: { readonly [K in ProviderName]: true } = {
  anthropic: true,
  openai: true,
  azure: true,
  google: true,
  bedrock: true,
  openrouter: true,
  groq: true,
  deepseek: true,
  ollama: true,
  'openai-compatible': true,
};

/** True when `value` is one of the `ProviderName` literals. */
export function isProviderName(value: unknown): value is ProviderName {
  return typeof value === 'string' && Object.hasOwn(PROVIDER_NAMES, value);
}

/** The result of classifying one error. */
export interface ErrorClassification {
  kind: ErrorKind;
  /** Whether retrying the same model and profile can help (the kind's default policy). */
  retryable: boolean;
  /** HTTP status, when the error carries one. */
  status?: number;
  /** The most specific machine code found: `ECONNRESET`, `insufficient_quota`, `overloaded_error`… */
  code?: string;
  provider?: ProviderName;
  /**
   * The wait the provider asked for (`retry-after-ms`, `retry-after` in seconds or as an HTTP
   * date, Google's `RetryInfo.retryDelay`) when it is within 0–60 s: a turn may sleep through it
   * before trying the same target again.
   */
  retryAfterMs?: number;
  /**
   * The wait the provider asked for when it is longer than 60 s (capped at 24 h), instead of
   * `retryAfterMs`: a turn does not wait for it, but a breaker or profile cooldown should keep
   * the target out of use for that long. Never set together with `retryAfterMs`.
   */
  cooldownMs?: number;
  /** Log-safe (sanitized, capped) message. Never show it to end users: use `userMessage`. */
  message?: string;
}

export interface ClassifyErrorOptions {
  /** The caller's own signal. Only when it is aborted is an error a `caller_abort`. */
  signal?: AbortSignal;
}
