import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import {
  createServer as createHttpServer,
  request as httpRequest,
  type IncomingHttpHeaders,
} from 'node:http';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { MockProvider } from '@keel/testing';
import type { GatewayProcess } from './gateway-process';
import { parseSse, type SseEvent } from './sse-events';

/** The registry's reference MCP servers, installed as devDependencies of this workspace. */
export const MCP_BIN = {
  everything: fileURLToPath(
    new URL('../../node_modules/.bin/mcp-server-everything', import.meta.url),
  ),
  filesystem: fileURLToPath(
    new URL('../../node_modules/.bin/mcp-server-filesystem', import.meta.url),
  ),
};

/** A gateway config over the mock provider (Anthropic wire) with these `tools`. */
export function mcpGatewayConfig(
  mock: MockProvider,
  tools: unknown,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    sessionsDir: 'sessions',
    providers: [
      {
        id: 'anthropic',
        api: 'anthropic-messages',
        baseUrl: mock.anthropicBaseUrl,
        profiles: [{ id: 'k1', apiKey: 'key-1' }],
      },
    ],
    models: { primary: 'anthropic/m1' },
    tools,
    logging: { level: 'debug' },
    ...extra,
  };
}

/** Sends a message asking for the event stream; resolves with every event once it ends. */
export async function streamMessage(
  gateway: GatewayProcess,
  sessionId: string,
  body: Record<string, unknown>,
): Promise<SseEvent[]> {
  const response = await gateway.fetch(`/v1/sessions/${sessionId}/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify(body),
  });
  return parseSse(await response.text());
}

/** The `tool_result` blocks of an Anthropic request body the mock recorded. */
export function toolResultsOf(body: unknown): Array<Record<string, unknown>> {
  const messages = (body as { messages?: Array<{ content: unknown }> }).messages ?? [];
  return messages.flatMap((message) =>
    Array.isArray(message.content)
      ? (message.content as Array<Record<string, unknown>>).filter(
          (block) => block['type'] === 'tool_result',
        )
      : [],
  );
}

/** The tool names an Anthropic request body offered. */
export function toolNamesOf(body: unknown): string[] {
  return ((body as { tools?: Array<{ name: string }> }).tools ?? []).map((tool) => tool.name);
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The pid a gateway logged for a server's start (or its last restart). */
export function serverPid(gateway: GatewayProcess, server: string): number {
  const lines = gateway.logs.filter(
    (line) =>
      line['server'] === server &&
      (line['msg'] === 'MCP server started' || line['msg'] === 'MCP server restarted'),
  );
  const pid = lines.at(-1)?.['pid'];
  if (typeof pid !== 'number') throw new Error(`no pid logged for MCP server "${server}"`);
  return pid;
}

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** server-everything over streamable HTTP on a loopback port (given, or a free one), up once it says it listens. */
export async function startEverythingHttp(port?: number): Promise<{
  url: string;
  port: number;
  child: ChildProcess;
  stop(): Promise<void>;
}> {
  const listenOn = port ?? (await freePort());
  const child = spawn(MCP_BIN.everything, ['streamableHttp'], {
    env: { PATH: process.env['PATH'] ?? '', PORT: String(listenOn) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let said = '';
  await new Promise<void>((resolve, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      said += chunk.toString();
      if (said.includes('listening on port')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`server-everything exited (${code}): ${said}`)));
  });
  return {
    url: `http://127.0.0.1:${listenOn}/mcp`,
    port: listenOn,
    child,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGKILL');
      await once(child, 'exit');
    },
  };
}

/** A loopback HTTP proxy in front of `target` that records each request's headers. */
export async function recordingProxy(
  target: string,
): Promise<{ url: string; headers: IncomingHttpHeaders[]; close(): Promise<void> }> {
  const upstream = new URL(target);
  const headers: IncomingHttpHeaders[] = [];
  const server = createHttpServer((request, response) => {
    headers.push(request.headers);
    const forward = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        path: request.url,
        method: request.method,
        headers: { ...request.headers, host: upstream.host },
        agent: false,
      },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    forward.on('error', () => response.destroy());
    request.pipe(forward);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    url: `http://127.0.0.1:${address.port}${upstream.pathname}`,
    headers,
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
