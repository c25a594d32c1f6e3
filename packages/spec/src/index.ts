export type {
  CompactionAttempt,
  CompactionEvent,
  CompactionProvider,
  CompactionProviderRequest,
  CompactionProviderResult,
  CompactionSkipReason,
  CompactionStore,
  CompactionTrigger,
  CompactorPort,
  CompactRequest,
  CompactResult,
} from './compaction';
export type {
  ContentBlock,
  Message,
  Role,
  TextBlock,
  ToolResultBlock,
  ToolUseBlock,
  Usage,
} from './content';
export type { ErrorKind, KindedError } from './error-kind';
export type {
  BreakerState,
  Clock,
  HealthEvent,
  HealthPermit,
  HealthReport,
  HealthSnapshot,
  ModelTarget,
  ProviderHealth,
} from './health';
export type {
  BindingInvalidReason,
  FinishReason,
  ModelCallOptions,
  ModelCapabilities,
  ModelEvent,
  ModelPort,
  ModelRequest,
  ToolDefinition,
} from './model';
export type {
  AttemptRecord,
  BeforeModelCallContext,
  BeforeToolCallContext,
  DecisionLabel,
  ModelRouter,
  ToolCall,
  ToolCallContext,
  ToolCallResult,
  ToolRunner,
  TurnEvent,
  TurnEventBase,
  TurnHooks,
  TurnOutcome,
} from './orchestrator';
export type { KeelPlugin, PluginClassifierRule, PluginTool } from './plugin';
export type {
  AppendOptions,
  AppendResult,
  FenceCallOptions,
  InspectOptions,
  LeaseEvent,
  LeaseOptions,
  ReadTailOptions,
  SessionFence,
  SessionFenceFactory,
  SessionFenceStatus,
  SessionLease,
  SessionStorage,
  SessionTakeoverErrorShape,
  SessionTakeoverPhase,
  StorageCallOptions,
  TrailingToolUses,
  TranscriptChangeKind,
  TranscriptRead,
  TranscriptState,
} from './storage';
export type {
  CompactionEntry,
  CompactionProvenance,
  EntryBase,
  MessageEntry,
  ModelSelectionEntry,
  TranscriptEntry,
  TranscriptHeader,
  TranscriptIssue,
  TurnEntry,
  TurnOutcomeKind,
} from './transcript';
export { TRANSCRIPT_FORMAT_VERSION } from './transcript';
export { SPEC_VERSION } from './version';
