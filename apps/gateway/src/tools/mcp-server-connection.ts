import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type CallToolResult, McpError, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { describeError } from './describe-error';
import { McpServerError } from './mcp-server-error';
import { createStdioProcessTransport } from './stdio-process-transport';
import type { McpServerConfig } from './tools-schema';

// One configured MCP server, kept connected: started (and its allowed tools checked) at
// gateway start, restarted by the next call after it died, closed with the gateway.

/** What a connection tells the gateway's log. */
export type McpServerNotice =
  | { type: 'started'; server: string; tools: string[]; pid?: number }
  | { type: 'stderr'; server: string; line: string }
  | { type: 'exited'; server: string; code: number | null; signal: string | null }
  | { type: 'restarting'; server: string }
  | { type: 'restarted'; server: string; pid?: number };

export interface McpServerConnectionOptions {
  name: string;
  config: McpServerConfig;
  /** Where a relative `cwd` resolves (the config file's folder). */
  baseDir: string;
  onNotice?: (notice: McpServerNotice) => void;
  /** Passed to stdio servers' closes (tests shorten it). */
  closeStepMs?: number;
}

export interface McpServerConnection {
  readonly name: string;
  /** Connects and lists the tools; throws `McpServerError` naming the server and why. */
  start(): Promise<Tool[]>;
  /** Calls one tool, reconnecting first when the server died since the last call. */
  call(
    tool: string,
    input: Record<string, unknown>,
    options: { signal: AbortSignal; timeoutMs: number },
  ): Promise<CallToolResult>;
  close(): Promise<void>;
}

const MAX_TOOL_PAGES = 64;
const STDERR_KEPT = 20;

export function createMcpServerConnection(
  options: McpServerConnectionOptions,
): McpServerConnection {
  const { name, config } = options;
  const stderr: string[] = [];
  let client: Client | undefined;
  let connecting: Promise<Client> | undefined;
  let closing = false;
  let started = false;

  const notice = (value: McpServerNotice) => options.onNotice?.(value);

  function transportFor(): Transport {
    if (config.kind === 'http') {
      return new StreamableHTTPClientTransport(new URL(config.url), {
        requestInit: { headers: config.headers },
      });
    }
    return createStdioProcessTransport({
      command: config.command,
      args: config.args,
      env: config.env,
      cwd: resolve(options.baseDir, config.cwd ?? '.'),
      ...(options.closeStepMs === undefined ? {} : { closeStepMs: options.closeStepMs }),
      onStderr(line) {
        stderr.push(line);
        if (stderr.length > STDERR_KEPT) stderr.shift();
        notice({ type: 'stderr', server: name, line });
      },
      onExit: ({ code, signal }) => notice({ type: 'exited', server: name, code, signal }),
    });
  }

  async function connect(): Promise<Client> {
    const next = new Client({ name: 'keel-gateway', version: '1' });
    const transport = transportFor();
    const timer = new AbortController();
    const deadline = new Promise<never>((_, reject) => {
      const id = setTimeout(
        () => reject(new Error(`no answer within ${config.startTimeoutMs} ms`)),
        config.startTimeoutMs,
      );
      timer.signal.addEventListener('abort', () => clearTimeout(id));
    });
    try {
      await Promise.race([next.connect(transport, { timeout: config.startTimeoutMs }), deadline]);
    } catch (error) {
      await next.close().catch(() => undefined);
      await transport.close().catch(() => undefined);
      throw error;
    } finally {
      timer.abort();
    }
    next.onclose = () => {
      if (client === next) client = undefined;
    };
    client = next;
    return next;
  }

  /** The live client, or a new one when there is none (one connect at a time). */
  function ready(): Promise<Client> {
    if (client !== undefined) return Promise.resolve(client);
    if (closing) return Promise.reject(new Error(`MCP server "${name}" is closed`));
    if (connecting === undefined) {
      const restart = started;
      if (restart) notice({ type: 'restarting', server: name });
      connecting = connect()
        .then((live) => {
          const pid = processId(live);
          if (restart)
            notice({ type: 'restarted', server: name, ...(pid === undefined ? {} : { pid }) });
          return live;
        })
        .finally(() => {
          connecting = undefined;
        });
    }
    return connecting;
  }

  async function drop(stale: Client): Promise<void> {
    if (client === stale) client = undefined;
    await stale.close().catch(() => undefined);
  }

  return {
    name,
    async start() {
      try {
        const live = await ready();
        const tools: Tool[] = [];
        let cursor: string | undefined;
        for (let page = 0; page < MAX_TOOL_PAGES; page += 1) {
          const listed = await live.listTools(cursor === undefined ? {} : { cursor });
          tools.push(...listed.tools);
          cursor = listed.nextCursor;
          if (cursor === undefined) break;
        }
        started = true;
        const pid = processId(live);
        notice({
          type: 'started',
          server: name,
          tools: tools.map((tool) => tool.name),
          ...(pid === undefined ? {} : { pid }),
        });
        return tools;
      } catch (error) {
        const said = stderr.length === 0 ? '' : `; it wrote: ${stderr.slice(-5).join(' | ')}`;
        throw new McpServerError({
          server: name,
          message: `MCP server "${name}" could not start: ${messageOf(error)}${said}`,
          cause: error,
        });
      }
    },
    async call(tool, input, { signal, timeoutMs }) {
      signal.throwIfAborted();
      for (let attempt = 1; ; attempt += 1) {
        const live = await ready();
        try {
          return (await live.callTool({ name: tool, arguments: input }, undefined, {
            signal,
            timeout: timeoutMs,
          })) as CallToolResult;
        } catch (error) {
          if (signal.aborted || error instanceof McpError) throw error;
          // The connection is broken (a dead process, a refused socket): the next call reconnects.
          await drop(live);
          // An HTTP server that forgot the session (it restarted) refused the request unrun: a
          // new session asks once more. The spec's answer is 404; SDK-based servers often say 400.
          if (attempt === 1 && sessionLost(error)) continue;
          throw error;
        }
      }
    },
    async close() {
      closing = true;
      const pending = connecting;
      if (pending !== undefined) await pending.catch(() => undefined);
      const live = client;
      client = undefined;
      if (live !== undefined) await live.close().catch(() => undefined);
    },
  };
}

function sessionLost(error: unknown): boolean {
  return error instanceof StreamableHTTPError && (error.code === 404 || error.code === 400);
}

function processId(client: Client): number | undefined {
  const transport = client.transport as { pid?: number } | undefined;
  return transport?.pid;
}

function messageOf(error: unknown): string {
  const text = describeError(error);
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}
