import { Agent, request } from 'node:http';

export interface KeepAliveClient {
  /** One request; the connection stays open in the pool afterwards, for as long as the server allows. */
  send(options: {
    method?: string;
    path: string;
    headers?: Record<string, string>;
    body?: string;
  }): Promise<{ status: number; headers: Record<string, unknown>; text: string }>;
  /** Sockets the pool still holds open. */
  openSockets(): number;
  close(): void;
}

/**
 * An HTTP client that keeps every connection alive with no idle limit of its own, like a
 * long-lived proxy: a server that waits for its clients to hang up would wait forever.
 */
export function createKeepAliveClient(baseUrl: string): KeepAliveClient {
  const url = new URL(baseUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  return {
    send(options) {
      return new Promise((resolve, reject) => {
        const outgoing = request(
          {
            agent,
            host: url.hostname,
            port: url.port,
            method: options.method ?? 'GET',
            path: options.path,
            headers: options.headers,
          },
          (response) => {
            let text = '';
            response.setEncoding('utf8');
            response.on('data', (chunk: string) => {
              text += chunk;
            });
            response.on('end', () =>
              resolve({ status: response.statusCode ?? 0, headers: response.headers, text }),
            );
            response.on('error', reject);
          },
        );
        outgoing.on('error', reject);
        outgoing.end(options.body);
      });
    },
    openSockets: () =>
      Object.values(agent.sockets).flat().length + Object.values(agent.freeSockets).flat().length,
    close: () => agent.destroy(),
  };
}
