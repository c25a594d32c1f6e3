// OpenAI's streams are `data:` lines only (no `event:` names, unlike the gateway's own SSE), ended
// by `data: [DONE]`; this writes them over a hijacked reply and drops writes after the client left.
import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';

export interface DataStream {
  send(data: unknown): void;
  /** `data: [DONE]`, then the end: only after a complete answer. */
  done(): void;
  /** Ends the stream without `[DONE]` (after an in-band error). */
  end(): void;
  /** Runs when the client goes away (or the stream is ended). */
  onClose(listener: () => void): void;
}

export function openDataStream(reply: FastifyReply): DataStream {
  reply.hijack();
  const raw: ServerResponse = reply.raw;
  raw.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  // No flushHeaders(): the stream is opened with its first chunk ready, and the headers go out in
  // the same write (a write of their own cost about 1 ms per answer on a loaded machine).
  let closed = false;
  const listeners: Array<() => void> = [];
  const close = () => {
    if (closed) return;
    closed = true;
    for (const listener of listeners) listener();
  };
  raw.on('close', close);
  const write = (line: string) => {
    if (!closed && !raw.destroyed) raw.write(`data: ${line}\n\n`);
  };
  const end = () => {
    if (!raw.destroyed && !raw.writableEnded) raw.end();
    close();
  };
  return {
    send: (data) => write(JSON.stringify(data)),
    done() {
      write('[DONE]');
      end();
    },
    end,
    onClose(listener) {
      if (closed) listener();
      else listeners.push(listener);
    },
  };
}
