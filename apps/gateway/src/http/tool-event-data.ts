import type { TurnEvent } from '@keel/spec';

// What a streaming client sees of a tool call and its result: the arguments and the content,
// each cut at `MAX_TOOL_TEXT` characters (`truncated: true` says so). The transcript keeps all.

/** Characters of a tool call's arguments (as JSON) or result sent in one event. */
export const MAX_TOOL_TEXT = 16_384;

type ModelToolCall = Extract<
  Extract<TurnEvent, { type: 'model-event' }>['event'],
  { type: 'tool-call' }
>;

/** `tool-call`: `{ attempt, id, name, input }`; too long, `input` is the JSON's beginning. */
export function toolCallData(attempt: number, call: ModelToolCall): Record<string, unknown> {
  const json = JSON.stringify(call.input);
  const base = { attempt, id: call.id, name: call.name };
  if (json.length <= MAX_TOOL_TEXT) return { ...base, input: call.input };
  return { ...base, input: `${json.slice(0, MAX_TOOL_TEXT)}…`, truncated: true };
}

/** `tool-result`: `{ id, name, isError, durationMs, content }`, the content cut when too long. */
export function toolResultData(
  event: Extract<TurnEvent, { type: 'tool-run' }>,
): Record<string, unknown> {
  const base = {
    id: event.toolUseId,
    name: event.name,
    isError: event.isError,
    durationMs: event.durationMs,
  };
  const content = event.content;
  if (content === undefined) return base;
  if (content.length <= MAX_TOOL_TEXT) return { ...base, content };
  return { ...base, content: `${content.slice(0, MAX_TOOL_TEXT)}…`, truncated: true };
}
