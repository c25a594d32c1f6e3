export { describeCompactionProviderConformance } from './compaction-conformance';
export {
  CONFORMANCE_SECTIONS,
  CONVERSATION_IDENTIFIERS,
  conformanceRequest,
  conversationEntries,
  largeEntries,
  TOOL_PAIR_IDENTIFIERS,
  toolPairEntries,
} from './compaction-conformance-fixtures';
export type { CompactionProviderConformanceOptions } from './compaction-conformance-types';
export type { ProviderHealthUnderTestOptions } from './health-conformance';
export { describeProviderHealthConformance } from './health-conformance';
export {
  describeSessionStorageConformance,
  sessionStorageChecks,
  turnClaimChecks,
} from './storage-conformance';
export type {
  SessionStorageConformanceOptions,
  SessionStorageUnderTest,
} from './storage-conformance-fixtures';
export { storageConformanceEntries, storageUserMessage } from './storage-conformance-fixtures';
export type { StorageCheck, StorageCheckContext } from './storage-conformance-support';
