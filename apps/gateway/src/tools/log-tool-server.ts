import type { FastifyBaseLogger } from 'fastify';
import type { McpServerNotice } from './mcp-server-connection';

/** One log line per MCP server notice: start (with its tools), exits and restarts; stderr at debug. */
export function logToolServer(logger: FastifyBaseLogger, notice: McpServerNotice): void {
  switch (notice.type) {
    case 'started':
      logger.info(
        { server: notice.server, tools: notice.tools.length, pid: notice.pid },
        'MCP server started',
      );
      return;
    case 'stderr':
      logger.debug({ server: notice.server, line: notice.line }, 'MCP server stderr');
      return;
    case 'exited':
      logger.info(
        { server: notice.server, code: notice.code, signal: notice.signal },
        'MCP server exited',
      );
      return;
    case 'restarting':
      logger.warn({ server: notice.server }, 'MCP server restarting');
      return;
    case 'restarted':
      logger.info({ server: notice.server, pid: notice.pid }, 'MCP server restarted');
      return;
    default: {
      const unexpected: never = notice;
      void unexpected;
    }
  }
}
