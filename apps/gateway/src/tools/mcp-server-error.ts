// An MCP server that cannot start (or lacks an allowed tool) stops the gateway at start-up,
// naming the server: found at run time it would only be a tool error the model reads.
const MARKER = Symbol.for('keel.error.McpServerError');

export interface McpServerErrorOptions {
  /** The server's name in `tools.mcp`. */
  server: string;
  message: string;
  cause?: unknown;
}

/** One configured MCP server cannot be used; the message names it and says why. */
export class McpServerError extends Error {
  readonly [MARKER] = true;
  override readonly name = 'McpServerError';
  readonly server: string;

  constructor(options: McpServerErrorOptions) {
    super(options.message, options.cause === undefined ? {} : { cause: options.cause });
    this.server = options.server;
  }

  static isInstance(error: unknown): error is McpServerError {
    return typeof error === 'object' && error !== null && MARKER in error;
  }
}
