export {
  type BindingStore,
  type CliBinding,
  createFileBindingStore,
  createMemoryBindingStore,
  type FileBindingStoreOptions,
} from './binding-store';
export type { ReseedContext } from './build-cli-prompt';
export { ClaudeCliError, type ClaudeCliErrorOptions } from './claude-cli-error';
export type {
  ClaudeCliReseedOptions,
  ClaudeCliTransportOptions,
  OrphanPolicy,
  ReseedLoadContext,
} from './claude-cli-options';
export { createClaudeCliTransport } from './create-claude-cli-transport';
