import { fileURLToPath } from 'node:url';
import { PNPM_START_NODE_OPTIONS } from './keel-gateway';
import { startService } from './service';
import type { BareProxy } from './start-bare-proxy';

const childPath = fileURLToPath(new URL('./durable-proxy-child.ts', import.meta.url));

/** The durable floor (`durable-proxy-child.ts`) in its own process, forwarding to `upstream`, its files in `dir`. */
export async function startDurableProxy(upstream: string, dir: string): Promise<BareProxy> {
  const service = startService([childPath, upstream, dir], { nodeOptions: ['--import', 'tsx'] });
  const [, url = ''] = await service.waitForLine(/^DURABLE_PROXY_LISTENING (\S+)/);
  return { url, service };
}

/**
 * The durable floor's rungs that stand in for Keel's gateway, each in its own process:
 * `fixed-parts` (`fixed-parts-child.ts`: Fastify, the `openai` SDK through `@keel/transport`, two
 * appends and one fsync), `straight-fence` (`straight-fence-child.ts`: those with the session
 * fence's file-system calls made straight), `fenced-parts` (`fenced-parts-child.ts`: the fixed
 * parts plus the session fence) and `turn-core` (`turn-core-child.ts`: those plus the
 * orchestrator's turn).
 */
export type FloorRung = 'fixed-parts' | 'straight-fence' | 'fenced-parts' | 'turn-core';

/**
 * The rung `rung` of the durable floor in its own process, calling `model` at the provider
 * `baseUrl`, its files in `dir`. Launched as `pnpm start` launches the gateway (its young
 * generation), the child bounding its old generation as the gateway does: the heap's policy is
 * one of the parts the project keeps.
 */
export async function startFloorRung(
  rung: FloorRung,
  baseUrl: string,
  dir: string,
  model: string,
  /** More `node` options (e.g. `--require` a probe). */
  nodeOptions: readonly string[] = [],
): Promise<BareProxy> {
  const path = fileURLToPath(new URL(`./${rung}-child.ts`, import.meta.url));
  const service = startService([path, baseUrl, dir, model], {
    nodeOptions: [...nodeOptions, '--import', 'tsx', ...PNPM_START_NODE_OPTIONS],
  });
  const tag = rung.toUpperCase().replaceAll('-', '_');
  const [, url = ''] = await service.waitForLine(new RegExp(`^${tag}_LISTENING (\\S+)`));
  return { url, service };
}
