import { fileURLToPath } from 'node:url';
import { type Service, startService } from './service';

/** A bare proxy (`bare-proxy-child.ts`) in its own process, forwarding to `upstream`. */
export interface BareProxy {
  readonly url: string;
  readonly service: Service;
}

const childPath = fileURLToPath(new URL('./bare-proxy-child.ts', import.meta.url));

export async function startBareProxy(
  upstream: string,
  mode: 'net' | 'pipe' | 'fetch',
): Promise<BareProxy> {
  const service = startService([childPath, upstream, mode], { nodeOptions: ['--import', 'tsx'] });
  const [, url = ''] = await service.waitForLine(/^BARE_PROXY_LISTENING (\S+)/);
  return { url, service };
}
