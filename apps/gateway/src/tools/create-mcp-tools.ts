import type { ToolDefinition, ToolRunner } from '@keel/spec';
import { describeError } from './describe-error';
import { mcpResultText } from './mcp-result-text';
import type { McpServerConnection, McpServerNotice } from './mcp-server-connection';
import { McpServerError } from './mcp-server-error';
import type { McpServerConfig } from './tools-schema';

// The tools of the configured MCP servers, offered to the model as `server__tool`: every
// server started and every allowed tool found before the gateway listens, or start-up stops
// naming the server.

/** What providers accept as a tool name (Anthropic and OpenAI alike). */
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

export interface CreateMcpToolsOptions {
  /** `tools.mcp`: server name → settings. */
  servers: Readonly<Record<string, McpServerConfig>>;
  /** Where relative `cwd`s resolve (the config file's folder). */
  baseDir: string;
  /** Each call's bound, passed to the server as the request timeout (the runner's bound too). */
  timeoutMs: number;
  onNotice?: (notice: McpServerNotice) => void;
  /** Each step of closing a stdio server (stdin, SIGTERM, SIGKILL); default 2 000 ms. */
  closeStepMs?: number;
}

export interface McpTools {
  /** Undefined when no server is configured. */
  readonly runner: ToolRunner | undefined;
  /** Closes every server (stdio servers with their whole process group). */
  close(): Promise<void>;
}

export async function createMcpTools(options: CreateMcpToolsOptions): Promise<McpTools> {
  const entries = Object.entries(options.servers);
  if (entries.length === 0) return { runner: undefined, close: async () => undefined };
  // Loaded only for a gateway with servers: the MCP client and its protocol schemas hold about
  // 8 MiB of heap that every full collection would walk (issue 20).
  const { createMcpServerConnection } = await import('./mcp-server-connection');
  const connections = entries.map(([name, config]) =>
    createMcpServerConnection({
      name,
      config,
      baseDir: options.baseDir,
      ...(options.onNotice === undefined ? {} : { onNotice: options.onNotice }),
      ...(options.closeStepMs === undefined ? {} : { closeStepMs: options.closeStepMs }),
    }),
  );
  const close = async () => {
    await Promise.allSettled(connections.map((connection) => connection.close()));
  };
  const listed = await Promise.allSettled(connections.map((connection) => connection.start()));
  const byName = new Map<string, { connection: McpServerConnection; tool: string }>();
  const definitions: ToolDefinition[] = [];
  const problems: McpServerError[] = [];
  listed.forEach((result, index) => {
    const [name, config] = entries[index] as [string, McpServerConfig];
    const connection = connections[index] as McpServerConnection;
    if (result.status === 'rejected') {
      problems.push(
        McpServerError.isInstance(result.reason)
          ? result.reason
          : new McpServerError({ server: name, message: String(result.reason) }),
      );
      return;
    }
    const offered = new Map(result.value.map((tool) => [tool.name, tool]));
    for (const toolName of config.allow) {
      const tool = offered.get(toolName);
      const fullName = `${name}__${toolName}`;
      if (tool === undefined) {
        problems.push(
          new McpServerError({
            server: name,
            message: `MCP server "${name}" has no tool named "${toolName}" (it has: ${[...offered.keys()].join(', ') || 'none'})`,
          }),
        );
      } else if (!TOOL_NAME.test(fullName)) {
        problems.push(
          new McpServerError({
            server: name,
            message: `MCP server "${name}": "${fullName}" is not a name models accept (1-64 letters, digits, "_" or "-")`,
          }),
        );
      } else {
        byName.set(fullName, { connection, tool: toolName });
        const description = tool.description ?? tool.title;
        definitions.push({
          name: fullName,
          ...(description === undefined ? {} : { description }),
          inputSchema: tool.inputSchema as Record<string, unknown>,
        });
      }
    }
  });
  if (problems.length > 0) {
    await close();
    const [first] = problems;
    if (problems.length === 1 && first !== undefined) throw first;
    throw new McpServerError({
      server: problems.map((problem) => problem.server).join(', '),
      message: problems.map((problem) => problem.message).join('\n'),
    });
  }
  return {
    runner: {
      definitions,
      async run(call, context) {
        const entry = byName.get(call.name);
        if (entry === undefined) {
          return { content: `There is no tool named "${call.name}".`, isError: true };
        }
        try {
          const result = await entry.connection.call(entry.tool, call.input, {
            signal: context.signal,
            timeoutMs: options.timeoutMs,
          });
          return mcpResultText(result);
        } catch (error) {
          context.signal.throwIfAborted();
          throw new Error(`MCP server "${entry.connection.name}": ${describeError(error)}`, {
            cause: error,
          });
        }
      },
    },
    close,
  };
}
