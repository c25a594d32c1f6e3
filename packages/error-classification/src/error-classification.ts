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
  /** From `retry-after-ms` / `retry-after`, only when within 0–60 s. */
  retryAfterMs?: number;
  /** Log-safe (sanitized, capped) message. Never show it to end users: use `userMessage`. */
  message?: string;
}

export interface ClassifyErrorOptions {
  /** The caller's own signal. Only when it is aborted is an error a `caller_abort`. */
  signal?: AbortSignal;
}
