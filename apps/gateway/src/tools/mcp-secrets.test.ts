import { describe, expect, it } from 'vitest';
import { configSchema } from '../config/config-schema';
import { secretsOf } from '../config/secrets-of';
import { mcpSecretsOf } from './mcp-secrets';
import { toolsSchema } from './tools-schema';

describe('the MCP settings a log must not show', () => {
  it('every header value (and a bearer token alone), secret-named env values', () => {
    const tools = toolsSchema.parse({
      mcp: {
        web: {
          url: 'http://127.0.0.1:9/mcp',
          headers: { authorization: 'Bearer s3cr3t-token' },
          allow: ['a'],
        },
        fs: { command: 'x', env: { GITHUB_TOKEN: 'ghp_abc', LOG_LEVEL: 'debug' }, allow: ['b'] },
      },
    });
    expect(mcpSecretsOf(tools)).toEqual(['Bearer s3cr3t-token', 's3cr3t-token', 'ghp_abc']);
  });

  it("are among the configuration's secrets the logger redacts", () => {
    const config = configSchema.parse({
      providers: [{ id: 'demo', api: 'demo' }],
      models: { primary: 'demo/keel-demo' },
      tools: {
        mcp: {
          web: {
            url: 'http://127.0.0.1:9/mcp',
            headers: { 'x-api-key': 'k-123456789' },
            allow: ['a'],
          },
        },
      },
    });
    expect(secretsOf(config)).toContain('k-123456789');
  });
});
