import { connect } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
}

export interface RawRequestOptions {
  method?: string;
  /** Sent byte for byte as UTF-8: no URL normalization (`..` stays), no encoding. */
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

/**
 * One HTTP/1.1 request written straight to a socket, for inputs `fetch` or `http.request` would
 * rewrite or refuse (dot segments, raw UTF-8 in the request line). The connection closes after it.
 */
export function rawRequest(baseUrl: string, options: RawRequestOptions): Promise<RawResponse> {
  const url = new URL(baseUrl);
  const body = options.body === undefined ? undefined : Buffer.from(options.body);
  const headers: Record<string, string> = {
    host: url.host,
    connection: 'close',
    ...(body === undefined ? {} : { 'content-length': String(body.length) }),
    ...options.headers,
  };
  const head = [
    `${options.method ?? 'GET'} ${options.path} HTTP/1.1`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    '',
    '',
  ].join('\r\n');
  return new Promise((resolve, reject) => {
    const socket = connect({ host: url.hostname, port: Number(url.port) });
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('end', () => resolve(parseResponse(Buffer.concat(chunks).toString('utf8'))));
    socket.write(Buffer.concat([Buffer.from(head, 'utf8'), body ?? Buffer.alloc(0)]));
  });
}

function parseResponse(raw: string): RawResponse {
  const split = raw.indexOf('\r\n\r\n');
  const [statusLine = '', ...headerLines] = raw.slice(0, split).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let text = raw.slice(split + 4);
  if (headers['transfer-encoding'] === 'chunked') text = dechunk(text);
  return { status: Number(statusLine.split(' ')[1]), headers, text };
}

function dechunk(text: string): string {
  let out = '';
  let rest = text;
  for (;;) {
    const lineEnd = rest.indexOf('\r\n');
    const size = Number.parseInt(rest.slice(0, lineEnd), 16);
    if (!(size > 0)) return out;
    const chunk = Buffer.from(rest.slice(lineEnd + 2), 'utf8')
      .subarray(0, size)
      .toString('utf8');
    out += chunk;
    rest = rest.slice(lineEnd + 2 + chunk.length + 2);
  }
}
