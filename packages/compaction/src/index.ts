export type {
  CompactionAttempt,
  CompactionEntry,
  CompactionEvent,
  CompactionProvenance,
  CompactionProvider,
  CompactionProviderRequest,
  CompactionProviderResult,
  CompactionSkipReason,
  CompactionStore,
  CompactionTrigger,
  CompactorPort,
  CompactRequest,
  CompactResult,
  ContentBlock,
  MessageEntry,
  TranscriptEntry,
} from '@keel/spec';
export type { BackoffOptions } from './backoff';
export { computeBackoffDelay, MAX_RETRY_AFTER_MS } from './backoff';
export type { CompactionChunk } from './chunk-messages';
export { chunkMessages } from './chunk-messages';
export type { CompactionErrorCode, CompactionErrorOptions } from './compaction-error';
export { CompactionError } from './compaction-error';
export type { CompactionFailureCounts } from './compaction-failure-counts';
export type {
  AfterCompactContext,
  BeforeCompactContext,
  BeforeCompactResult,
  CompactionHooks,
} from './compaction-hooks';
export type { CompactionRegistry } from './compaction-registry';
export { createCompactionRegistry } from './compaction-registry';
export type { Compactor, CompactorOptions } from './create-compactor';
export { createCompactor, HOOK_PRODUCER_ID } from './create-compactor';
export type { ContextTokenEstimate } from './estimate-tokens';
export {
  estimateContextTokens,
  estimateEntryTokens,
  estimateMessageTokens,
  estimateTextTokens,
} from './estimate-tokens';
export { collectIdentifiers, extractIdentifiers } from './extract-identifiers';
export type { FindCutPointOptions } from './find-cut-point';
export { findBlockedCuts, findCutPoint, findLatestUserRequest } from './find-cut-point';
export { BUILTIN_PRODUCER_ID } from './model-summarizer';
export type {
  CompactionBudgetOptions,
  CompactionPlan,
  PlanCompactionOptions,
  ShouldCompactOptions,
} from './plan-compaction';
export { defaultChunkMaxTokens, planCompaction, shouldCompact } from './plan-compaction';
export { messageText, renderMessage, renderMessages, truncateMiddle } from './render-messages';
export type { ChunkRetryDecision } from './retry-decision';
export { decideChunkRetry } from './retry-decision';
export type { CompactionContext } from './select-context';
export { selectContext } from './select-context';
export { computeSourceDigest } from './source-digest';
export type { SummaryInstructionsOptions } from './summary-instructions';
export { buildSummaryInstructions } from './summary-instructions';
export type { SummarySection } from './summary-sections';
export { findMissingSections, SUMMARY_SECTIONS } from './summary-sections';
export type {
  SummaryProblem,
  SummaryValidation,
  ValidateSummaryOptions,
} from './validate-summary';
export { describeSummaryProblems, validateSummary } from './validate-summary';
