import type {
  ContentBlock,
  FinishReason,
  ModelCallOptions,
  ModelEvent,
  ModelPort,
  ModelRequest,
  ToolCall,
  Usage,
} from '@keel/spec';
import { IncompleteAttemptError } from './incomplete-attempt-error';
import { createReplyCap } from './reply-cap';

/** One message a model call produced: the model's own, or (ports that run tools) its tool results. */
export interface AttemptSegment {
  role: 'assistant' | 'tool';
  content: ContentBlock[];
}

/** What an attempt has produced so far; kept when it fails, for `staleReply` and `discard`. */
export interface AttemptProgress {
  segments: AttemptSegment[];
  /** Every text (and refusal) piece, joined. */
  text: string;
  firstOutputAt: number | undefined;
  usage: Usage | undefined;
  finish: FinishReason | undefined;
}

export interface StreamAttemptOptions {
  port: ModelPort;
  request: ModelRequest;
  callOptions: ModelCallOptions;
  now: () => number;
  /** Every event as it arrives, in order. */
  onEvent(event: ModelEvent): void;
  progress: AttemptProgress;
  /** Text (and refusal) bytes one call may produce; past it `ReplyTooLargeError`. Default no cap. */
  maxReplyBytes?: number;
}

export function createProgress(): AttemptProgress {
  return {
    segments: [],
    text: '',
    firstOutputAt: undefined,
    usage: undefined,
    finish: undefined,
  };
}

/**
 * Runs one model call to its end, recording into `progress`. Resolves with the calls the
 * orchestrator must run (none when the port runs its own tools); rejects with the port's error,
 * or `IncompleteAttemptError` when the stream ended without a `finish`, or `ReplyTooLargeError`
 * (before the piece that passed `maxReplyBytes` is recorded or passed on).
 */
export async function streamAttempt(options: StreamAttemptOptions): Promise<ToolCall[]> {
  const { progress } = options;
  const runsOwnTools = options.port.capabilities.runsOwnTools;
  const toRun: ToolCall[] = [];
  const segment = (role: AttemptSegment['role']): AttemptSegment => {
    const last = progress.segments.at(-1);
    if (last?.role === role) return last;
    const created: AttemptSegment = { role, content: [] };
    progress.segments.push(created);
    return created;
  };
  const cap =
    options.maxReplyBytes === undefined ? undefined : createReplyCap(options.maxReplyBytes);
  const addText = (text: string) => {
    if (text === '') return;
    progress.text += text;
    const content = segment('assistant').content;
    const last = content.at(-1);
    if (last?.type === 'text') last.text += text;
    else content.push({ type: 'text', text });
  };
  const output = () => {
    progress.firstOutputAt ??= options.now();
  };

  for await (const event of options.port.stream(options.request, options.callOptions)) {
    switch (event.type) {
      case 'text-delta':
      case 'refusal':
        cap?.(event.text);
        output();
        addText(event.text);
        break;
      case 'tool-call':
        output();
        segment('assistant').content.push({
          type: 'tool_use',
          id: event.id,
          name: event.name,
          input: event.input,
        });
        if (!runsOwnTools) toRun.push({ id: event.id, name: event.name, input: event.input });
        break;
      case 'tool-result':
        segment('tool').content.push({
          type: 'tool_result',
          toolUseId: event.toolUseId,
          content: event.content,
          ...(event.isError === undefined ? {} : { isError: event.isError }),
        });
        break;
      case 'usage': {
        const { type: _type, ...usage } = event;
        progress.usage = usage;
        break;
      }
      case 'finish':
        progress.finish = event.reason;
        break;
      case 'binding-invalidated':
      case 'session-bound':
        break;
    }
    options.onEvent(event);
  }
  if (progress.finish === undefined) throw new IncompleteAttemptError();
  return toRun;
}
