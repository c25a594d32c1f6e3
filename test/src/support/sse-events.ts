/** One server-sent event as a client sees it. */
export interface SseEvent {
  event: string;
  data: unknown;
}

/** Parses a complete `text/event-stream` body (comments are skipped). */
export function parseSse(text: string): SseEvent[] {
  return text
    .split('\n\n')
    .map((block) => block.trim())
    .filter((block) => block !== '' && !block.startsWith(':'))
    .map((block) => ({
      event: /^event: (.*)$/m.exec(block)?.[1] ?? 'message',
      data: JSON.parse(/^data: (.*)$/m.exec(block)?.[1] ?? 'null') as unknown,
    }));
}

/** Reads a live event stream: resolves the first event (past or future) that matches. */
export interface SseReader {
  readonly events: SseEvent[];
  next(predicate: (event: SseEvent) => boolean): Promise<SseEvent>;
  /** Resolves when the server ends the stream. */
  readonly ended: Promise<void>;
  close(): void;
}

export function readSse(response: Response, controller: AbortController): SseReader {
  const events: SseEvent[] = [];
  const waiters: Array<{
    predicate: (event: SseEvent) => boolean;
    resolve: (event: SseEvent) => void;
  }> = [];
  const ended = (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let cut = buffer.indexOf('\n\n');
        while (cut !== -1) {
          for (const event of parseSse(buffer.slice(0, cut + 2))) {
            events.push(event);
            for (const waiter of [...waiters]) {
              if (!waiter.predicate(event)) continue;
              waiters.splice(waiters.indexOf(waiter), 1);
              waiter.resolve(event);
            }
          }
          buffer = buffer.slice(cut + 2);
          cut = buffer.indexOf('\n\n');
        }
      }
    } catch (error) {
      if (!controller.signal.aborted) throw error;
    }
  })();
  return {
    events,
    ended,
    next(predicate) {
      const found = events.find(predicate);
      if (found !== undefined) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        waiters.push({ predicate, resolve });
        void ended.then(
          () => reject(new Error(`the stream ended first: ${JSON.stringify(events)}`)),
          reject,
        );
      });
    },
    close: () => controller.abort(),
  };
}
