import type { IncomingMessage } from 'node:http';
import type { RecordedRequest } from './mock-provider-types';

/** Which api a method and path (query string removed) belong to. */
function routeOf(method: string, pathname: string): RecordedRequest['api'] {
  if (method !== 'POST') return 'other';
  const path = pathname.replace(/\/+$/, '');
  switch (path) {
    case '/v1/messages':
      return 'anthropic-messages';
    case '/v1/messages/count_tokens':
      return 'count-tokens';
    case '/v1/chat/completions':
      return 'openai-chat';
    case '/v1/responses':
      return 'openai-responses';
    default:
      return 'other';
  }
}

function headerRecord(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

function apiKeyOf(headers: Record<string, string>): string | undefined {
  const authorization = headers['authorization'];
  if (authorization !== undefined) {
    const match = /^Bearer\s+(.+)$/i.exec(authorization.trim());
    if (match?.[1] !== undefined) return match[1];
  }
  return headers['x-api-key'];
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function field(body: unknown, name: string): unknown {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  return (body as Record<string, unknown>)[name];
}

/** One request read off the wire: its record, and what answering it needs besides. */
export interface ReadRequest {
  /** What `MockProvider.requests` shows (its `behavior` is filled in when answered). */
  record: RecordedRequest;
  /** The path without its query string. */
  pathname: string;
  /** The body is present but not a JSON object or array. */
  invalidJson: boolean;
  /** The body's `tools`, for token estimates. */
  tools: unknown;
}

/** Reads a request's body and records it: api, path, model, key, stream, messages, headers. */
export async function readRequest(
  request: IncomingMessage,
  connection: number,
): Promise<ReadRequest> {
  const method = request.method ?? 'GET';
  const path = request.url ?? '/';
  const pathname = path.split('?')[0] ?? '/';
  const raw = await readBody(request);
  const headers = headerRecord(request);
  const api = routeOf(method, pathname);
  let body: unknown;
  let parseError = false;
  if (raw.length > 0) {
    try {
      body = JSON.parse(raw);
    } catch {
      parseError = true;
      body = raw;
    }
  }
  const isResponses = api === 'openai-responses';
  const model = field(body, 'model');
  const record: RecordedRequest = {
    api,
    method,
    path,
    model: typeof model === 'string' ? model : undefined,
    apiKey: apiKeyOf(headers),
    stream: field(body, 'stream') === true,
    messages: field(body, isResponses ? 'input' : 'messages'),
    system: field(body, isResponses ? 'instructions' : 'system'),
    body,
    headers,
    behavior: 'ok',
    receivedAt: Date.now(),
    connection,
  };
  return {
    record,
    pathname,
    invalidJson: parseError || (body !== undefined && typeof body !== 'object'),
    tools: field(body, 'tools'),
  };
}
