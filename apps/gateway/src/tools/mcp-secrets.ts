import type { ToolsConfig } from './tools-schema';

const SECRET_NAME = /(^|_)(API_?KEY|KEY|TOKEN|SECRET|PASSWORD)$/i;

/**
 * What the MCP servers' settings hold that a log must never show: every HTTP header value (an
 * `Authorization` bearer, an API key header) and stdio `env` values with secret-like names.
 */
export function mcpSecretsOf(tools: ToolsConfig): string[] {
  const secrets: string[] = [];
  for (const server of Object.values(tools.mcp)) {
    if (server.kind === 'http') {
      for (const value of Object.values(server.headers)) {
        secrets.push(value);
        // `Bearer <token>`: the token alone may be logged by a server's error text.
        const token = /^\S+\s+(\S{8,})$/.exec(value)?.[1];
        if (token !== undefined) secrets.push(token);
      }
    } else {
      for (const [name, value] of Object.entries(server.env)) {
        if (SECRET_NAME.test(name) && value !== '') secrets.push(value);
      }
    }
  }
  return secrets;
}
