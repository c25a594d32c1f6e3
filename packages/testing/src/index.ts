export { defaultMockReply, lastUserText } from './default-mock-reply';
export type {
  MockFaults,
  ModelNotFoundOptions,
  PromptTooLongOptions,
  RateLimitedOptions,
} from './mock-faults';
export { mockFaults } from './mock-faults';
export { createMockProvider } from './mock-provider';
export type {
  MockApi,
  MockBehavior,
  MockErrorType,
  MockProvider,
  MockProviderOptions,
  MockScriptEntry,
  MockToolCall,
  MockUsage,
  RecordedRequest,
} from './mock-provider-types';
