import { fileURLToPath } from 'node:url';
import { startService } from './service';
import type { BareProxy } from './start-bare-proxy';

const childPath = fileURLToPath(new URL('./durable-proxy-child.ts', import.meta.url));

/** The durable floor (`durable-proxy-child.ts`) in its own process, forwarding to `upstream`, its files in `dir`. */
export async function startDurableProxy(upstream: string, dir: string): Promise<BareProxy> {
  const service = startService([childPath, upstream, dir], { nodeOptions: ['--import', 'tsx'] });
  const [, url = ''] = await service.waitForLine(/^DURABLE_PROXY_LISTENING (\S+)/);
  return { url, service };
}
