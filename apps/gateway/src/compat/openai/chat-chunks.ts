// The `chat.completion.chunk`s of one streamed answer, in the order OpenAI sends them: the role,
// text deltas, tool calls, a chunk with the finish reason, then (when asked) the usage chunk.
import type { CallOutcome } from '@keel/spec';
import {
  type ChatFinishReason,
  type ChatToolCall,
  type ChatUsage,
  type CompletionIdentity,
  chatUsageOf,
  finishReasonOf,
  identityOf,
  replyParts,
} from './chat-completion';

export interface ChatChunk extends CompletionIdentity {
  object: 'chat.completion.chunk';
  choices: Array<{
    index: 0;
    delta: {
      role?: 'assistant';
      content?: string;
      tool_calls?: Array<ChatToolCall & { index: number }>;
    };
    logprobs: null;
    finish_reason: ChatFinishReason | null;
  }>;
  usage?: ChatUsage;
}

/** Builds one answer's chunks; tool calls are numbered in the order they come. */
export interface ChunkWriter {
  role(): ChatChunk;
  text(text: string): ChatChunk;
  toolCall(call: ChatToolCall): ChatChunk;
  finish(reason: ChatFinishReason): ChatChunk;
  usage(usage: ChatUsage): ChatChunk;
  /** Tool calls written so far. */
  toolCalls(): number;
}

export function createChunkWriter(identity: CompletionIdentity): ChunkWriter {
  let toolCalls = 0;
  const chunk = (
    delta: ChatChunk['choices'][number]['delta'],
    finish: ChatFinishReason | null = null,
  ): ChatChunk => ({
    id: identity.id,
    object: 'chat.completion.chunk',
    created: identity.created,
    model: identity.model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  });
  return {
    role: () => chunk({ role: 'assistant', content: '' }),
    text: (text) => chunk({ content: text }),
    toolCall: (call) => chunk({ tool_calls: [{ index: toolCalls++, ...call }] }),
    finish: (reason) => chunk({}, reason),
    usage: (usage) => ({
      id: identity.id,
      object: 'chat.completion.chunk',
      created: identity.created,
      model: identity.model,
      choices: [],
      usage,
    }),
    // A method, not a getter: a getter in a literal keeps the call's scope alive through every
    // scavenge until the next full collection (CONTRIBUTING.md, "Objects on the hot path").
    toolCalls: () => toolCalls,
  };
}

/** The closing chunks of a reply: its finish reason, then its usage when asked and known. */
export function closingChunks(
  writer: ChunkWriter,
  outcome: CallOutcome,
  includeUsage: boolean,
): ChatChunk[] {
  const chunks = [writer.finish(finishReasonOf(outcome.finish, writer.toolCalls() > 0))];
  if (includeUsage && outcome.usage !== undefined)
    chunks.push(writer.usage(chatUsageOf(outcome.usage)));
  return chunks;
}

/** A whole reply as a stream's chunks (buffered mode, a repeat, a reply that streamed nothing). */
export function outcomeChunks(outcome: CallOutcome, includeUsage: boolean): ChatChunk[] {
  const writer = createChunkWriter(identityOf(outcome));
  const { text, toolCalls } = replyParts(outcome);
  const chunks = [writer.role()];
  if (text !== '') chunks.push(writer.text(text));
  for (const call of toolCalls) chunks.push(writer.toolCall(call));
  return [...chunks, ...closingChunks(writer, outcome, includeUsage)];
}
