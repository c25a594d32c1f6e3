/**
 * Type test (checked by `tsc --noEmit`): every transport this package creates is a `@keel/spec`
 * model port, so the orchestrator and compaction can take it without knowing its API.
 */
import type { ModelPort } from '@keel/spec';
import { createClaudeCliTransport } from './claude-cli';
import { createTransport } from './create-transport';
import { withRetryPin } from './with-retry-pin';

const chat = createTransport({ api: 'openai-chat', model: 'm' });
export const ports = [
  chat satisfies ModelPort,
  createTransport({ api: 'openai-responses', model: 'm' }) satisfies ModelPort,
  createTransport({ api: 'anthropic-messages', model: 'm' }) satisfies ModelPort,
  createTransport({ api: 'claude-cli' }) satisfies ModelPort,
  createClaudeCliTransport() satisfies ModelPort,
  withRetryPin(chat, 0) satisfies ModelPort,
];

// The spec's contract version is required, not optional.
export const version: 'v1' = chat.specificationVersion;
