import type { ContentBlock, Message } from '@keel/spec';

/** The caller's own record of the conversation, used to reseed a fresh CLI session. */
export interface ReseedContext {
  /** A compaction summary of everything before `messages`; it goes first. */
  summary?: string;
  /** The conversation after the summary, oldest first. */
  messages: Message[];
}

export interface BuildCliPromptOptions {
  /** The text to answer now. */
  latest: string;
  /** Prior context for a fresh CLI session; leave out when the CLI resumes its own session. */
  reseed?: ReseedContext;
  /** Budget in characters for the reseeded context (summary and messages). */
  maxChars: number;
}

function blockText(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'tool_use':
      return `[tool call ${block.name} (${block.id}): ${JSON.stringify(block.input)}]`;
    case 'tool_result':
      return `[tool result (${block.toolUseId})${block.isError ? ' error' : ''}: ${block.content}]`;
    default: {
      const unreachable: never = block;
      return String(unreachable);
    }
  }
}

/** A message's content as plain text. */
export function messageText(message: Message): string {
  if (typeof message.content === 'string') return message.content;
  return message.content.map(blockText).join('\n');
}

const roleLabels: Record<Message['role'], string> = {
  user: 'User',
  assistant: 'Assistant',
  tool: 'Tool',
};

function renderMessage(message: Message): string {
  return `${roleLabels[message.role]}: ${messageText(message)}`;
}

/**
 * Splits a request into what the CLI has not seen (the user messages after the last assistant
 * message, joined) and everything before it.
 */
export function splitPendingMessages(messages: readonly Message[]): {
  prior: Message[];
  pending: string;
} {
  let start = messages.length;
  while (start > 0 && messages[start - 1]?.role === 'user') start -= 1;
  if (start === messages.length && messages.length > 0) start = messages.length - 1;
  return {
    prior: messages.slice(0, start),
    pending: messages.slice(start).map(messageText).join('\n\n'),
  };
}

/** The visible marker that stands for messages left out of a reseed. */
export function omittedMarker(count: number): string {
  return `[… ${count} earlier message${count === 1 ? '' : 's'} omitted …]`;
}

const TRUNCATED_SUMMARY = '[… summary truncated …]';

function renderContext(reseed: ReseedContext, maxChars: number): string | undefined {
  const parts: string[] = [];
  let budget = maxChars;
  const summary = reseed.summary?.trim();
  if (summary) {
    const text =
      summary.length > budget
        ? `${summary.slice(0, Math.max(0, budget - TRUNCATED_SUMMARY.length - 1))}\n${TRUNCATED_SUMMARY}`
        : summary;
    parts.push(`<conversation-summary>\n${text}\n</conversation-summary>`);
    budget -= text.length;
  }
  const kept: string[] = [];
  for (let index = reseed.messages.length - 1; index >= 0; index -= 1) {
    const message = reseed.messages[index];
    if (message === undefined) continue;
    const rendered = renderMessage(message);
    if (rendered.length + 1 > budget) break;
    kept.unshift(rendered);
    budget -= rendered.length + 1;
  }
  const omitted = reseed.messages.length - kept.length;
  if (kept.length > 0 || omitted > 0) {
    const lines = omitted > 0 ? [omittedMarker(omitted), ...kept] : kept;
    parts.push(`<earlier-messages>\n${lines.join('\n')}\n</earlier-messages>`);
  }
  return parts.length === 0 ? undefined : parts.join('\n\n');
}

/**
 * The `-p` prompt for one CLI run. Without `reseed` it is the latest text alone; with it, the
 * prior context goes first — the summary, then the most recent messages that fit `maxChars`,
 * with a marker counting the ones left out.
 */
export function buildCliPrompt(options: BuildCliPromptOptions): string {
  const context =
    options.reseed === undefined ? undefined : renderContext(options.reseed, options.maxChars);
  if (context === undefined) return options.latest;
  return [
    '[The earlier session could not be continued. The conversation so far is restored below from the saved transcript; treat it as what was said before.]',
    context,
    `Latest message, answer it now:\n${options.latest}`,
  ].join('\n\n');
}
