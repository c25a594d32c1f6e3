/**
 * The options of the compaction conformance kit. The contract it checks is `@keel/spec`'s
 * `CompactionProvider` (types only: `@keel/testing` keeps zero runtime dependencies besides the
 * spec).
 */
export interface CompactionProviderConformanceOptions {
  /**
   * Also check what `@keel/compaction` validates: every required section heading and every
   * required identifier present. Default `true`; turn off for providers whose output is
   * post-processed elsewhere.
   */
  strict?: boolean;
  /** Estimated tokens (characters / 4) of the large-input case; default 200 000. */
  largeInputTokens?: number;
  /** Summary budget handed to the provider; default 2 000. */
  budgetTokens?: number;
  /**
   * How a summary's tokens are counted against `budgetTokens`; default characters / 4. Pass
   * `@keel/compaction`'s `estimateTextTokens` to count as the compactor does (a CJK, kana or
   * Hangul character is about one token).
   */
  estimateTokens?: (text: string) => number;
  /** Per-test timeout in ms; default vitest's. */
  timeoutMs?: number;
}
