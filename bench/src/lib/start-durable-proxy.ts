import { fileURLToPath } from 'node:url';
import { PNPM_START_NODE_OPTIONS } from './keel-gateway';
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
 * Launched as `pnpm start` launches the gateway (its young generation), the child bounding its
 * old generation as the gateway does: the heap's policy is one of the parts the project keeps.
 */
export async function startFixedParts(
  baseUrl: string,
  dir: string,
  model: string,
  /** More `node` options (e.g. `--require` a probe). */
  nodeOptions: readonly string[] = [],
): Promise<BareProxy> {
  const service = startService([fixedPartsPath, baseUrl, dir, model], {
    nodeOptions: [...nodeOptions, '--import', 'tsx', ...PNPM_START_NODE_OPTIONS],
  });
  const [, url = ''] = await service.waitForLine(/^FIXED_PARTS_LISTENING (\S+)/);
  return { url, service };
}
