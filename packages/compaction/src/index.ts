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
export type { CompactionChunk } from './chunk-messages';
export type { CompactionErrorCode, CompactionErrorOptions } from './compaction-error';
export { CompactionError } from './compaction-error';
export type { CompactionFailureCounts } from './compaction-failure-counts';
export type {
  BeforeCompactContext,
  BeforeCompactResult,
  CompactionHooks,
} from './compaction-hooks';
export type { CompactionRegistry } from './compaction-registry';
export { createCompactionRegistry } from './compaction-registry';
export type { CompactionUsage } from './compaction-usage';
export type { Compactor, CompactorOptions } from './create-compactor';
export { createCompactor } from './create-compactor';
export type { CompactionRetryOptions } from './create-producer-list';
export type { ContextTokenEstimate } from './estimate-tokens';
export {
  estimateContextTokens,
  estimateMessageTokens,
  estimateTextTokens,
} from './estimate-tokens';
export type {
  CompactionBudgetOptions,
  CompactionPlan,
  PlanCompactionOptions,
  ShouldCompactOptions,
} from './plan-compaction';
export { planCompaction, shouldCompact } from './plan-compaction';
export { BUILTIN_PRODUCER_ID, HOOK_PRODUCER_ID } from './producer-ids';
export type { CompactionContext } from './select-context';
export { selectContext } from './select-context';
export type { SummarySection } from './summary-sections';
export { SUMMARY_SECTIONS } from './summary-sections';
export type {
  SummaryProblem,
  SummaryValidation,
  ValidateSummaryOptions,
} from './validate-summary';
export { validateSummary } from './validate-summary';
