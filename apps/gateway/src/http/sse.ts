import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';

/** A server-sent event stream over a hijacked reply. Writes after the client left are dropped. */
export interface SseStream {
  send(event: string, data: unknown): void;
  comment(text: string): void;
  end(): void;
  /** Runs when the client goes away (or the stream is ended). */
  onClose(listener: () => void): void;
}

export interface OpenSseOptions {
  /**
   * `false` when the first event is written right after opening: the headers then go out in the
   * same write instead of one of their own.
   */
  flush?: boolean;
  /**
   * For a client that may stop reading (a follower): once this many bytes wait unsent (and the
   * socket asks to drain), events and comments are dropped, and when it drains a `gap` event
   * (`{ "dropped": n }`) tells the client how many it missed. Without it every write is kept.
   */
  maxBufferBytes?: number;
}

/** The event a follower that fell behind gets once it reads again: how many events it missed. */
export const GAP_EVENT = 'gap';

export function openSse(
  reply: FastifyReply,
  headers: Record<string, string> = {},
  options: OpenSseOptions = {},
): SseStream {
  reply.hijack();
  const raw: ServerResponse = reply.raw;
  raw.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
    ...headers,
  });
  if (options.flush !== false) raw.flushHeaders?.();
  let closed = false;
  const listeners: Array<() => void> = [];
  const close = () => {
    if (closed) return;
    closed = true;
    for (const listener of listeners) listener();
  };
  raw.on('close', close);
  const { maxBufferBytes } = options;
  let dropped = 0;
  const reportGap = () => {
    if (closed || raw.destroyed || dropped === 0) return;
    raw.write(`event: ${GAP_EVENT}\ndata: ${JSON.stringify({ dropped })}\n\n`);
    dropped = 0;
  };
  /** Whether this write must be dropped: the client is not reading what it was sent. */
  const behind = (): boolean => {
    if (maxBufferBytes === undefined) return false;
    if (dropped > 0) return true; // until the gap is reported, on drain
    if (!raw.writableNeedDrain || raw.writableLength <= maxBufferBytes) return false;
    raw.once('drain', reportGap);
    return true;
  };
  return {
    send(event, data) {
      if (closed || raw.destroyed) return;
      if (behind()) {
        dropped += 1;
        return;
      }
      raw.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    },
    comment(text) {
      if (closed || raw.destroyed || (maxBufferBytes !== undefined && dropped > 0)) return;
      raw.write(`: ${text.replace(/[\r\n]/g, ' ')}\n\n`);
    },
    end() {
      if (!raw.destroyed && !raw.writableEnded) raw.end();
      close();
    },
    onClose(listener) {
      if (closed) listener();
      else listeners.push(listener);
    },
  };
}
