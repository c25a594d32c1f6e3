import type { ToolCall, ToolDefinition } from '@keel/spec';
import { lastUserText } from './default-mock-reply';
import type { MockApi, MockBehavior, MockToolCall, RecordedRequest } from './mock-provider-types';
import { offeredToolNames, trailingToolResults } from './wire-tool-results';

type OkBehavior = Extract<MockBehavior, { type: 'ok' }>;

/**
 * The two harmless tools the demo model (`createMockProvider({ demo: true })`) knows how to call,
 * as `@keel/spec` tool definitions: offer them (in any api's wire format) and run them yourself.
 */
export const mockDemoTools: readonly ToolDefinition[] = Object.freeze([
  {
    name: 'current_time',
    description: 'The current date and time, as an ISO 8601 string in UTC.',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  },
  {
    name: 'roll_dice',
    description: 'Roll one fair die and return the number it shows.',
    inputSchema: {
      type: 'object',
      properties: { sides: { type: 'integer', minimum: 2, description: 'Number of sides.' } },
      required: ['sides'],
      additionalProperties: false,
    },
  },
]);

const ASKS_TIME = /\b(?:time|clock)\b/i;
const ASKS_DICE = /\b(?:roll|rolls|dice|die|d\d+)\b/i;
const DEFAULT_SIDES = 6;

/** The die's sides a message asks for: "d20", "20-sided", "20 sides"; else 6. */
export function sidesAskedFor(text: string): number {
  const match =
    /\bd(\d{1,7})\b/i.exec(text) ?? /\b(\d{1,7})[- ]?(?:sided|sides|faced)\b/i.exec(text);
  const sides = Number(match?.[1]);
  return Number.isInteger(sides) && sides >= 2 && sides <= 1_000_000 ? sides : DEFAULT_SIDES;
}

/** One sentence that answers with a tool's result. */
function sentenceFor(call: ToolCall, content: string, isError: boolean): string {
  const result = content.trim();
  if (isError) return `The ${call.name} tool failed: ${result}`;
  if (call.name === 'current_time') return `The current time is ${result}.`;
  if (call.name === 'roll_dice') {
    const sides = typeof call.input['sides'] === 'number' ? call.input['sides'] : DEFAULT_SIDES;
    return `I rolled a ${sides}-sided die and got ${result}.`;
  }
  return `The ${call.name} tool returned: ${result}`;
}

/**
 * What the demo model answers (deterministic; the same on every api):
 * - the request ends with tool results → one sentence per result, using it;
 * - the last user message asks for the time (`time`, `clock`) and `current_time` is offered →
 *   a `current_time {}` call; asks to roll dice (`roll`, `dice`, `die`, `d20`) and `roll_dice` is
 *   offered → a `roll_dice { sides }` call (sides from "d20" / "20-sided", default 6); both →
 *   both calls;
 * - asked, but the tool is not offered → a sentence saying so;
 * - anything else → `defaultText` (the provider's default reply).
 */
export function demoBehavior(
  api: MockApi,
  request: Pick<RecordedRequest, 'messages' | 'body'>,
  defaultText: string,
): OkBehavior {
  const results = trailingToolResults(api, request.messages);
  if (results.length > 0) {
    const text = results.map((result) => sentenceFor(result.call, result.content, result.isError));
    return { type: 'ok', text: text.join(' ') };
  }
  const asked = lastUserText(request);
  const offered = new Set(offeredToolNames(api, request.body));
  const calls: MockToolCall[] = [];
  const missing: string[] = [];
  if (ASKS_TIME.test(asked)) {
    if (offered.has('current_time')) calls.push({ name: 'current_time', input: {} });
    else missing.push("I can't tell the time: no current_time tool was offered.");
  }
  if (ASKS_DICE.test(asked)) {
    const sides = sidesAskedFor(asked);
    if (offered.has('roll_dice')) calls.push({ name: 'roll_dice', input: { sides } });
    else missing.push("I can't roll dice: no roll_dice tool was offered.");
  }
  if (calls.length > 0) return { type: 'ok', toolCalls: calls };
  if (missing.length > 0) return { type: 'ok', text: missing.join(' ') };
  return { type: 'ok', text: defaultText };
}
