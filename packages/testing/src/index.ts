export { defaultMockReply, lastUserText } from './default-mock-reply';
export type { FakeClaude, FakeClaudeOptions } from './fake-claude';
export { createFakeClaude, fakeClaudePath } from './fake-claude';
export { FAKE_CLAUDE_LOG_ENV, FAKE_CLAUDE_SCRIPT_ENV } from './fake-claude-run';
export type {
  FakeClaudeLogEntry,
  FakeClaudeResult,
  FakeClaudeScenario,
  FakeClaudeStep,
  FakeClaudeTurn,
} from './fake-claude-types';
export type {
  ForwardedAnswer,
  ForwardedRequest,
  ForwardingProxy,
  ForwardRequestHook,
} from './forward-to';
export { forwardTo } from './forward-to';
export type {
  MockChaosFault,
  MockChaosInjection,
  MockChaosOptions,
  MockChaosStats,
} from './mock-chaos-types';
export { mockDemoTools } from './mock-demo-model';
export type {
  MockFaults,
  ModelNotFoundOptions,
  PromptTooLongOptions,
  RateLimitedOptions,
  UnauthorizedOptions,
} from './mock-faults';
export { mockFaults } from './mock-faults';
export { createMockProvider } from './mock-provider';
export type {
  MockApi,
  MockBehavior,
  MockErrorType,
  MockMatch,
  MockProvider,
  MockProviderOptions,
  MockScriptEntry,
  MockToolCall,
  MockUsage,
  RecordedRequest,
} from './mock-provider-types';
export type { PromotedBytesOptions } from './promoted-bytes';
export { promotedBytes } from './promoted-bytes';
export { seededRandom } from './seeded-random';
