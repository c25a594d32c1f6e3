import { z } from 'zod';

// The `tools` key of keel.config.json: the built-in demo tools, and MCP servers whose allowed
// tools are offered to the model as `server__tool`. The old form (an array of built-in names)
// stays valid and means `{ builtin: [...] }`.

export const BUILTIN_TOOL_NAMES = ['current_time', 'roll_dice'] as const;
const builtinList = z.array(z.enum(BUILTIN_TOOL_NAMES));

/**
 * A server's name is the prefix of its tools' names: letters, digits and `-` only, so that
 * `server__tool` splits one way and fits the providers' tool-name rules (`^[a-zA-Z0-9_-]{1,64}$`).
 */
const SERVER_NAME = /^[A-Za-z0-9][A-Za-z0-9-]{0,31}$/;

/** One MCP server: `command` (stdio) or `url` (streamable HTTP), never both. */
export const mcpServerSchema = z
  .strictObject({
    /** The server's tools offered to the model (by the server's names); every one must exist. */
    allow: z
      .array(z.string().min(1))
      .min(1, 'must name at least one tool of the server')
      .refine((list) => new Set(list).size === list.length, 'tool names must be unique'),
    /** How long connecting and listing its tools may take at start (and on a restart). */
    startTimeoutMs: z.number().int().positive().default(30_000),
    /** stdio: started as a child process in its own process group (closed with it on shutdown). */
    command: z.string().min(1).optional(),
    args: z.array(z.string()).optional(),
    /** stdio: added to the few variables a server inherits (PATH, HOME…; never the gateway's keys). */
    env: z.record(z.string(), z.string()).optional(),
    /** stdio: relative to the config file's folder; default that folder. */
    cwd: z.string().min(1).optional(),
    /** A streamable HTTP MCP endpoint. */
    url: z.url().optional(),
    /** HTTP: sent with every request (e.g. `Authorization`). */
    headers: z.record(z.string(), z.string()).optional(),
  })
  .superRefine((server, context) => {
    if ((server.command === undefined) === (server.url === undefined)) {
      context.addIssue({
        code: 'custom',
        message: 'needs either "command" (stdio) or "url" (HTTP)',
      });
    }
    const misplaced =
      server.command === undefined
        ? (['args', 'env', 'cwd'] as const).filter((key) => server[key] !== undefined)
        : (['headers'] as const).filter((key) => server[key] !== undefined);
    for (const key of misplaced) {
      context.addIssue({
        code: 'custom',
        path: [key],
        message: `is for ${server.command === undefined ? 'stdio servers ("command")' : 'HTTP servers ("url")'}`,
      });
    }
  })
  .transform((server): McpServerConfig => {
    const { allow, startTimeoutMs } = server;
    if (server.url !== undefined)
      return {
        kind: 'http',
        allow,
        startTimeoutMs,
        url: server.url,
        headers: server.headers ?? {},
      };
    return {
      kind: 'stdio',
      allow,
      startTimeoutMs,
      command: server.command ?? '',
      args: server.args ?? [],
      env: server.env ?? {},
      ...(server.cwd === undefined ? {} : { cwd: server.cwd }),
    };
  });

interface ServerBase {
  allow: string[];
  startTimeoutMs: number;
}
export interface McpStdioServerConfig extends ServerBase {
  kind: 'stdio';
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
}
export interface McpHttpServerConfig extends ServerBase {
  kind: 'http';
  url: string;
  headers: Record<string, string>;
}
export type McpServerConfig = McpStdioServerConfig | McpHttpServerConfig;

const toolsObject = z.strictObject({
  builtin: builtinList.default([]),
  mcp: z
    .record(z.string(), mcpServerSchema)
    .superRefine((servers, context) => {
      for (const name of Object.keys(servers)) {
        if (SERVER_NAME.test(name)) continue;
        context.addIssue({
          code: 'custom',
          path: [name],
          message: 'a server name must be 1-32 letters, digits or "-"',
        });
      }
    })
    .default({}),
});

/** `tools` as written: the old array of built-in names, or the object. */
export type ToolsInput = z.input<typeof builtinList> | z.input<typeof toolsObject>;

export const toolsSchema = z
  .preprocess((tools) => (Array.isArray(tools) ? { builtin: tools } : tools), toolsObject)
  .prefault({}) as unknown as z.ZodDefault<z.ZodType<z.output<typeof toolsObject>, ToolsInput>>;

export type ToolsConfig = z.output<typeof toolsSchema>;
