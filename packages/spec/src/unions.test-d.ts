/**
 * Type test (checked by `tsc --noEmit`): every union can be switched over exhaustively, so a new
 * member is a compile error in every consumer that forgot it.
 */
import type {
  ContentBlock,
  DecisionLabel,
  ErrorKind,
  ModelEvent,
  TranscriptEntry,
  TurnEvent,
} from './index';

function never(value: never): never {
  throw new Error(String(value));
}

export function blockName(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'tool_use':
      return block.name;
    case 'tool_result':
      return block.toolUseId;
    default:
      return never(block);
  }
}

export function entryName(entry: TranscriptEntry): string {
  switch (entry.type) {
    case 'message':
      return entry.messageId;
    case 'compaction':
      return entry.provenance.producerId;
    case 'turn':
      return entry.turnId;
    case 'model-selection':
      return entry.model;
    default:
      return never(entry);
  }
}

export function eventName(event: ModelEvent): string {
  switch (event.type) {
    case 'text-delta':
    case 'refusal':
      return event.text;
    case 'tool-call':
      return event.id;
    case 'tool-result':
      return event.toolUseId;
    case 'usage':
      return String(event.inputTokens);
    case 'finish':
      return event.reason;
    case 'binding-invalidated':
      return event.reason;
    case 'session-bound':
      return event.cliSessionId;
    default:
      return never(event);
  }
}

export function turnEventName(event: TurnEvent): string {
  switch (event.type) {
    case 'turn-start':
    case 'attempt-start':
    case 'model-event':
    case 'attempt-error':
    case 'discard':
    case 'decision':
    case 'health':
    case 'compaction':
    case 'binding':
    case 'tool-run':
    case 'message-queued':
    case 'turn-end':
      return event.type;
    default:
      return never(event);
  }
}

const kinds: Record<ErrorKind, true> = {
  caller_abort: true,
  provider_abort: true,
  connection: true,
  timeout: true,
  rate_limit: true,
  overloaded: true,
  server_error: true,
  auth: true,
  billing: true,
  context_overflow: true,
  invalid_request: true,
  model_not_found: true,
  content_policy: true,
  session_takeover: true,
  coordination: true,
  storage: true,
  unknown: true,
};
const labels: Record<DecisionLabel, true> = {
  retry_same: true,
  rotate_profile: true,
  fallback_model: true,
  compact_and_retry: true,
  wait: true,
  switch_model: true,
  resend: true,
  final: true,
};
export const counts = [Object.keys(kinds).length, Object.keys(labels).length];
