import { fileURLToPath } from 'node:url';
import { startService } from './service';
import type { BareProxy } from './start-bare-proxy';

const childPath = fileURLToPath(new URL('./durable-proxy-child.ts', import.meta.url));
const fixedPartsPath = fileURLToPath(new URL('./fixed-parts-child.ts', import.meta.url));

/** The durable floor (`durable-proxy-child.ts`) in its own process, forwarding to `upstream`, its files in `dir`. */
export async function startDurableProxy(upstream: string, dir: string): Promise<BareProxy> {
  const service = startService([childPath, upstream, dir], { nodeOptions: ['--import', 'tsx'] });
  const [, url = ''] = await service.waitForLine(/^DURABLE_PROXY_LISTENING (\S+)/);
  return { url, service };
}

/**
 * The durable floor with the project's fixed parts (`fixed-parts-child.ts`: Fastify, the `openai`
 * SDK through `@keel/transport`) in its own process, calling `model` at the provider `baseUrl`.
 */
export async function startFixedParts(
  baseUrl: string,
  dir: string,
  model: string,
): Promise<BareProxy> {
  const service = startService([fixedPartsPath, baseUrl, dir, model], {
    nodeOptions: ['--import', 'tsx'],
  });
  const [, url = ''] = await service.waitForLine(/^FIXED_PARTS_LISTENING (\S+)/);
  return { url, service };
}
