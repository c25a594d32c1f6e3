import type { ServerResponse } from 'node:http';

/** Writes one response, and stops quietly once the connection is gone. */
export interface ResponseWriter {
  /** True once the client went away or the server destroyed the socket. */
  readonly gone: boolean;
  /** Send status and headers now (flushed). */
  head(status: number, headers: Record<string, string>): void;
  /** Write a chunk; resolves false when the connection is gone. */
  write(chunk: string): Promise<boolean>;
  /** Wait `ms` (0: no wait); resolves false when the connection went away meanwhile. */
  wait(ms: number): Promise<boolean>;
  end(chunk?: string): void;
  /** Destroy the underlying socket (a connection reset as the client sees it). */
  destroy(): void;
}

export function createResponseWriter(response: ServerResponse): ResponseWriter {
  let gone = false;
  const waiters = new Set<() => void>();
  const markGone = () => {
    gone = true;
    for (const wake of waiters) wake();
    waiters.clear();
  };
  // A keep-alive socket outlives its responses: detach from it when this response closes, so
  // listeners do not pile up on the socket across requests.
  const socket = response.socket;
  socket?.on('close', markGone);
  response.on('close', () => {
    socket?.off('close', markGone);
    markGone();
  });

  return {
    get gone() {
      return gone || response.destroyed;
    },
    head(status, headers) {
      if (this.gone) return;
      response.writeHead(status, headers);
      response.flushHeaders();
    },
    write(chunk) {
      if (this.gone) return Promise.resolve(false);
      return new Promise((resolve) => {
        const wake = () => resolve(false);
        waiters.add(wake);
        response.write(chunk, (error) => {
          waiters.delete(wake);
          resolve(!error && !gone);
        });
      });
    },
    wait(ms) {
      if (this.gone) return Promise.resolve(false);
      if (ms <= 0) return Promise.resolve(true);
      return new Promise((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          resolve(false);
        };
        const timer = setTimeout(() => {
          waiters.delete(wake);
          resolve(!gone);
        }, ms);
        waiters.add(wake);
      });
    },
    end(chunk) {
      if (this.gone) return;
      if (chunk === undefined) response.end();
      else response.end(chunk);
    },
    destroy() {
      response.socket?.destroy();
      response.destroy();
      markGone();
    },
  };
}
