export type {
  AppendOptions,
  AppendResult,
  CompactionEntry,
  ContentBlock,
  FenceCallOptions,
  InspectOptions,
  LeaseEvent,
  LeaseOptions,
  MessageEntry,
  ModelSelectionEntry,
  ReadTailOptions,
  Role,
  SessionFenceStatus,
  SessionLease,
  SessionStorage,
  SessionTakeoverPhase,
  StorageCallOptions,
  StorageErrorShape,
  StorageFailureReason,
  TrailingToolUses,
  TranscriptChangeKind,
  TranscriptEntry,
  TranscriptHeader,
  TranscriptIssue,
  TranscriptRead,
  TranscriptState,
  TurnEntry,
  TurnOutcomeKind,
} from '@keel/spec';
export { TRANSCRIPT_FORMAT_VERSION } from '@keel/spec';
export type {
  ClaudeCliTranscriptHasAssistantOptions,
  ResolveClaudeCliTranscriptPathOptions,
} from './claude-cli-transcript';
export {
  claudeCliProjectSlug,
  claudeCliTranscriptHasAssistant,
  defaultClaudeProjectsRoot,
  resolveClaudeCliTranscriptPath,
} from './claude-cli-transcript';
export type { FindOrphanedToolUsesOptions } from './find-orphaned-tool-uses';
export {
  DEFAULT_INSPECT_TAIL_BYTES,
  findOrphanedToolUses,
  inspectTrailingToolUses,
} from './find-orphaned-tool-uses';
export type { TranscriptFormat } from './find-trailing-orphans';
export type {
  GetTranscriptFileStatusOptions,
  TranscriptFileStatus,
} from './get-transcript-file-status';
export { getTranscriptFileStatus } from './get-transcript-file-status';
export type { LockOwner } from './lock-owner';
export { isProcessAlive } from './lock-owner';
export type { MigrateResult } from './migrate-transcript-entry';
export { migrateTranscriptEntry } from './migrate-transcript-entry';
export type { RepairOrphanedToolUsesOptions } from './repair-orphaned-tool-uses';
export { INTERRUPTED_TOOL_RESULT, repairOrphanedToolUses } from './repair-orphaned-tool-uses';
export type { SessionFence, SessionFenceOptions } from './session-fence';
export { createSessionFence } from './session-fence';
export type {
  InvalidSessionIdErrorOptions,
  InvalidTranscriptEntryErrorOptions,
  SessionFenceErrorOptions,
  SessionLockTimeoutErrorOptions,
  SessionTakeoverErrorOptions,
  StorageErrorOptions,
  UnsafeTranscriptPathErrorOptions,
} from './session-fence-error';
export {
  InvalidSessionIdError,
  InvalidTranscriptEntryError,
  SessionFenceError,
  SessionLockTimeoutError,
  SessionTakeoverError,
  StorageError,
  UnsafeTranscriptPathError,
} from './session-fence-error';
export { assertValidSessionId, isValidSessionId, SESSION_ID_PATTERN } from './session-id';
export type {
  LockCallOptions,
  SessionLock,
  SessionLockAcquireOptions,
  SessionLockEvent,
  SessionLockHandle,
  SessionLockOptions,
} from './session-lock';
export { createSessionLock } from './session-lock';
export type { TranscriptStore, TranscriptStoreOptions } from './transcript-store';
export { createTranscriptStore } from './transcript-store';
