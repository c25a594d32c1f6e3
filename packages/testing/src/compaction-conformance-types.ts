/**
 * The `CompactionProvider` contract of `@keel/compaction`, declared structurally so that
 * `@keel/testing` keeps zero runtime dependencies. A provider typed against `@keel/compaction`
 * is assignable to `ConformanceCompactionProvider`.
 */

export type ConformanceContentBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'tool_result'; toolUseId: string; content: string; isError?: boolean };

export interface ConformanceMessageEntry {
  type: 'message';
  id: string;
  timestamp: string;
  role: 'user' | 'assistant' | 'tool';
  content: string | ConformanceContentBlock[];
  model?: string;
  usage?: { inputTokens: number; outputTokens: number };
}

export interface ConformanceProviderRequest {
  entries: readonly ConformanceMessageEntry[];
  previousSummary: string | undefined;
  instructions: string;
  signal: AbortSignal;
  budgetTokens: number;
  requiredSections: readonly string[];
  requiredIdentifiers: readonly string[];
}

export interface ConformanceCompactionProvider {
  readonly specificationVersion: 'v1';
  readonly id: string;
  summarize(request: ConformanceProviderRequest): Promise<{ summary: string }>;
}

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
  /** Per-test timeout in ms; default vitest's. */
  timeoutMs?: number;
}
