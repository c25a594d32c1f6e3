import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Service, startService } from './service';

const require = createRequire(import.meta.url);
const launcher = fileURLToPath(new URL('./portkey-launch.mjs', import.meta.url));

/** Portkey's open-source gateway, a devDependency of this workspace, as a local stateless proxy. */
export interface Portkey {
  readonly url: string;
  readonly version: string;
  readonly service: Service;
}

export async function startPortkey(): Promise<Portkey> {
  const manifest = require.resolve('@portkey-ai/gateway/package.json');
  const { version } = require('@portkey-ai/gateway/package.json') as { version: string };
  const entry = join(dirname(manifest), 'build', 'start-server.js');
  const service = startService([launcher, entry], {
    env: { PATH: process.env['PATH'] ?? '', NODE_ENV: 'production' },
  });
  const [, url = ''] = await service.waitForLine(/^PORTKEY_LISTENING (\S+)/);
  return { url, version, service };
}

/** Headers that make Portkey forward a request to an OpenAI-compatible `baseUrl`. */
export function portkeyHeaders(baseUrl: string): Record<string, string> {
  return { 'x-portkey-provider': 'openai', 'x-portkey-custom-host': baseUrl };
}
