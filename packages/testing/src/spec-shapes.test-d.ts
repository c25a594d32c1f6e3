/**
 * Type test (checked by `tsc --noEmit`): the mock provider's shapes that the spec also holds are
 * the spec's, so a change to `@keel/spec` is a compile error here rather than a silent drift.
 */
import type { ToolCall, ToolDefinition, Usage } from '@keel/spec';
import { mockDemoTools } from './mock-demo-model';
import type { MockBehavior, MockToolCall, MockUsage } from './mock-provider-types';
import type { MockReply } from './wire-format';

type Equal<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function assertTrue<T extends true>(): T | undefined {
  return undefined;
}

assertTrue<Equal<MockUsage, Usage>>();
assertTrue<Equal<NonNullable<Extract<MockBehavior, { type: 'ok' }>['usage']>, Usage>>();
assertTrue<Equal<MockReply['toolCalls'][number], ToolCall>>();
assertTrue<Equal<MockReply['usage'], Usage>>();
// A mock tool call with its id is a spec ToolCall; without one, it is the spec's other fields.
assertTrue<Equal<Required<MockToolCall>, ToolCall>>();
assertTrue<Equal<Omit<MockToolCall, 'id'>, Omit<ToolCall, 'id'>>>();

export const demoTools: readonly ToolDefinition[] =
  mockDemoTools satisfies readonly ToolDefinition[];
