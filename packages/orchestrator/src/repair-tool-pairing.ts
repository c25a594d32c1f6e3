import type { ContentBlock, Message, ToolResultBlock } from '@keel/spec';

/** The text of a tool result made up for a call that has none. */
export const MISSING_TOOL_RESULT =
  'This tool call was interrupted before it returned a result; it may or may not have run.';

/** What `repairToolPairing` changed. */
export interface ToolPairingRepair {
  messages: Message[];
  /** Results made up for calls that had none (as errors). */
  addedResults: string[];
  /** Results dropped because no call right before them asked for them. */
  droppedResults: string[];
  /** Whether results were moved ahead of other messages to follow their calls directly. */
  reordered: boolean;
}

/**
 * Makes every `tool_use` answered by a `tool_result` in the messages right after it, and every
 * `tool_result` answer a `tool_use` of the assistant message right before it — what every provider
 * requires (an unpaired block earns a 400). Results that belong to a call move ahead of any other
 * message in between; missing ones are added as errors; stray ones are dropped. Pure.
 */
export function repairToolPairing(input: readonly Message[]): ToolPairingRepair {
  const messages: Message[] = [];
  const addedResults: string[] = [];
  const droppedResults: string[] = [];
  let reordered = false;
  let index = 0;
  while (index < input.length) {
    const message = input[index] as Message;
    index += 1;
    const uses = message.role === 'assistant' ? toolUseIds(message) : NO_IDS;
    if (uses.length === 0) {
      const kept = withoutStrayResults(message, NO_CALLS, droppedResults);
      if (kept !== undefined) messages.push(kept);
      continue;
    }
    messages.push(message);
    // The messages up to the next assistant message may hold this call's results.
    const gap: Message[] = [];
    while (index < input.length && (input[index] as Message).role !== 'assistant') {
      gap.push(input[index] as Message);
      index += 1;
    }
    const wanted = new Set(uses);
    const results = new Map<string, ToolResultBlock>();
    const others: Message[] = [];
    for (const candidate of gap) {
      const rest: ContentBlock[] = [];
      for (const block of blocksOf(candidate)) {
        if (block.type !== 'tool_result') rest.push(block);
        else if (wanted.has(block.toolUseId) && !results.has(block.toolUseId)) {
          if (others.length > 0) reordered = true;
          results.set(block.toolUseId, block);
        } else droppedResults.push(block.toolUseId);
      }
      if (rest.length > 0)
        others.push({ role: candidate.role === 'tool' ? 'user' : candidate.role, content: rest });
    }
    const answered: ToolResultBlock[] = uses.map((id) => {
      const found = results.get(id);
      if (found !== undefined) return found;
      addedResults.push(id);
      return { type: 'tool_result', toolUseId: id, content: MISSING_TOOL_RESULT, isError: true };
    });
    messages.push({ role: 'tool', content: answered });
    messages.push(...others);
  }
  return { messages, addedResults, droppedResults, reordered };
}

function blocksOf(message: Message): ContentBlock[] {
  return typeof message.content === 'string'
    ? [{ type: 'text', text: message.content }]
    : message.content;
}

// Most messages hold no tool call: they are kept as they are, and nothing is allocated for them
// (the request is built from the whole conversation on every model call; issue 20).
const NO_IDS: readonly string[] = [];
const NO_CALLS: ReadonlySet<string> = new Set();

function toolUseIds(message: Message): readonly string[] {
  if (typeof message.content === 'string') return NO_IDS;
  let ids: string[] | undefined;
  for (const block of message.content) {
    if (block.type !== 'tool_use') continue;
    if (ids === undefined) ids = [];
    ids.push(block.id);
  }
  return ids ?? NO_IDS;
}

function withoutStrayResults(
  message: Message,
  allowed: ReadonlySet<string>,
  dropped: string[],
): Message | undefined {
  if (typeof message.content === 'string') return message;
  if (!message.content.some((block) => block.type === 'tool_result')) return message;
  const content = message.content.filter((block) => {
    if (block.type !== 'tool_result' || allowed.has(block.toolUseId)) return true;
    dropped.push(block.toolUseId);
    return false;
  });
  if (content.length === message.content.length) return message;
  return content.length === 0 ? undefined : { role: message.role, content };
}
