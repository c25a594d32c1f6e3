import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';

/** A server-sent event stream over a hijacked reply. Writes after the client left are dropped. */
export interface SseStream {
  send(event: string, data: unknown): void;
  comment(text: string): void;
  end(): void;
  readonly closed: boolean;
  /** Runs when the client goes away (or the stream is ended). */
  onClose(listener: () => void): void;
}

/**
 * `flush: false` when the first event is written right after opening: the headers then go out
 * in the same write instead of one of their own.
 */
export function openSse(
  reply: FastifyReply,
  headers: Record<string, string> = {},
  options: { flush?: boolean } = {},
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
  return {
    send(event, data) {
      if (closed || raw.destroyed) return;
      raw.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    },
    comment(text) {
      if (closed || raw.destroyed) return;
      raw.write(`: ${text.replace(/[\r\n]/g, ' ')}\n\n`);
    },
    end() {
      if (!raw.destroyed && !raw.writableEnded) raw.end();
      close();
    },
    get closed() {
      return closed;
    },
    onClose(listener) {
      if (closed) listener();
      else listeners.push(listener);
    },
  };
}
