import type { ToolCall, Usage } from '@keel/spec';
import type { RecordedRequest } from './mock-provider-types';

/** Everything a wire format needs to render one answer. */
export interface MockReply {
  /** Response id (e.g. `msg_mock_3`). */
  id: string;
  model: string;
  text: string;
  /** The model's refusal, when it declines (sent instead of text). */
  refusal?: string;
  /** Tool calls with their ids resolved. */
  toolCalls: ToolCall[];
  usage: Usage;
  /** Characters per streamed text chunk. */
  chunkSize: number;
  request: RecordedRequest;
}

/** One server-sent event, already formatted; `text` marks frames carrying a text delta. */
export interface StreamFrame {
  data: string;
  text: boolean;
}

/** How one api renders answers and errors on the wire. */
export interface WireFormat {
  /** The non-streaming response body. */
  body(reply: MockReply): unknown;
  /** Every frame of a complete streaming answer, in order, terminal event included. */
  stream(reply: MockReply): StreamFrame[];
  /**
   * Frames of an in-stream error, sent after `framesSent` frames of `stream(reply)` (formats
   * that number their events continue from there).
   */
  streamError(
    reply: MockReply,
    error: { type: string; message: string },
    framesSent: number,
  ): string[];
}

/** Split text into chunks of `size` characters (at least one chunk when text is non-empty). */
export function chunkText(text: string, size: number): string[] {
  const step = Math.max(1, Math.floor(size));
  const chunks: string[] = [];
  for (let index = 0; index < text.length; index += step) {
    chunks.push(text.slice(index, index + step));
  }
  return chunks;
}

/** `event: <name>\ndata: <json>\n\n` */
export function sseEvent(name: string, data: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** `data: <json>\n\n` */
export function sseData(data: unknown): string {
  return `data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
}
