export {
  BINDING_FILE_VERSION,
  type BindingFile,
  type BindingStore,
  type CliBinding,
  createFileBindingStore,
  createMemoryBindingStore,
  type FileBindingStoreOptions,
  migrateBindingFile,
} from './binding-store';
export {
  type BuildCliPromptOptions,
  buildCliPrompt,
  omittedMarker,
  type ReseedContext,
} from './build-cli-prompt';
export { ClaudeCliError, type ClaudeCliErrorOptions } from './claude-cli-error';
export type {
  ClaudeCliReseedOptions,
  ClaudeCliTransportOptions,
  ReseedLoadContext,
} from './claude-cli-options';
export { type CliErrorFacts, cliErrorKind } from './cli-error-kind';
export { createClaudeCliTransport } from './create-claude-cli-transport';
