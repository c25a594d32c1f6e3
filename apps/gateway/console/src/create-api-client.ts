import { EventSourceParserStream } from 'eventsource-parser/stream';
import { ConsoleApiError } from './console-api-error';

export interface ApiClientOptions {
  /** Sent as `Authorization: Bearer <token>` on every request; none when undefined. */
  token: string | undefined;
  /** A request was refused with 401: the token is missing or wrong. */
  onUnauthorized(): void;
}

export interface StreamRequest {
  method?: 'GET' | 'POST';
  body?: unknown;
  signal: AbortSignal;
  /** The stream is open (status 200). */
  onOpen?(): void;
  /** One server-sent event, its data parsed as JSON. */
  onEvent(name: string, data: unknown): void;
}

/** The console's only way to the gateway: its public HTTP API, with the operator's token. */
export interface ApiClient {
  get<T>(path: string, options?: { signal?: AbortSignal }): Promise<T>;
  /** Reads a server-sent event stream to its end (`fetch` and a parser: headers can be set). */
  stream(path: string, request: StreamRequest): Promise<void>;
}

export function createApiClient(options: ApiClientOptions): ApiClient {
  const headers = (extra: Record<string, string>): Record<string, string> =>
    options.token === undefined ? extra : { ...extra, authorization: `Bearer ${options.token}` };

  async function refuse(response: Response): Promise<never> {
    let code: string | undefined;
    let message = `${response.status} ${response.statusText}`;
    try {
      const body = (await response.json()) as { error?: { code?: string; message?: string } };
      code = body.error?.code;
      message = body.error?.message ?? message;
    } catch {
      // not JSON: keep the status line
    }
    if (response.status === 401) options.onUnauthorized();
    throw new ConsoleApiError({
      message,
      status: response.status,
      ...(code === undefined ? {} : { code }),
    });
  }

  return {
    async get<T>(path: string, getOptions: { signal?: AbortSignal } = {}) {
      const response = await fetch(path, {
        headers: headers({ accept: 'application/json' }),
        ...(getOptions.signal === undefined ? {} : { signal: getOptions.signal }),
      });
      if (!response.ok) return refuse(response);
      return (await response.json()) as T;
    },

    async stream(path, request) {
      const response = await fetch(path, {
        method: request.method ?? 'GET',
        headers: headers({
          accept: 'text/event-stream',
          ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
        }),
        ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
        signal: request.signal,
      });
      if (!response.ok || response.body === null) return refuse(response);
      request.onOpen?.();
      const events = response.body
        .pipeThrough(new TextDecoderStream())
        .pipeThrough(new EventSourceParserStream({ maxBufferSize: 4_000_000 }));
      const reader = events.getReader();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          let data: unknown;
          try {
            data = JSON.parse(value.data);
          } catch {
            continue; // not ours: every gateway event is JSON
          }
          request.onEvent(value.event ?? 'message', data);
        }
      } finally {
        reader.releaseLock();
      }
    },
  };
}
