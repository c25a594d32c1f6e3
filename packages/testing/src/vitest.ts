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
