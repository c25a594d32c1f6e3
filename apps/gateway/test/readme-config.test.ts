import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configSchema } from '../src/config/config-schema';
import { loadConfig } from '../src/config/load-config';

const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
const section = readme.slice(readme.indexOf('## Configuration'));
const example = /```json\n([\s\S]*?)```/.exec(section)?.[1] ?? '';

describe("the README's configuration example", () => {
  it('is a valid configuration, as printed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'keel-readme-config-'));
    try {
      const path = join(dir, 'keel.config.json');
      await writeFile(path, example);
      const env = {
        ANTHROPIC_API_KEY: 'sk-ant-1',
        ANTHROPIC_API_KEY_2: 'sk-ant-2',
        OPENAI_API_KEY: 'sk-1',
      };
      const { config } = await loadConfig({ path, env });
      expect(config.providers.map((provider) => provider.api)).toEqual([
        'anthropic-messages',
        'openai-chat',
        'openai-chat',
        'claude-cli',
      ]);
      expect(config.server.authToken).toBeUndefined();
      expect(config.sessionsDir).toBe(join(dir, '.keel/sessions'));
      expect(Object.keys(config.models.settings)).toEqual([
        'anthropic/claude-sonnet-5',
        'openai/gpt-5.4',
        'claude/sonnet',
      ]);
      // The printed health settings are the defaults.
      const bare = configSchema.parse({
        providers: config.providers,
        models: { primary: 'claude/x' },
      });
      expect(config.health).toEqual(bare.health);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
