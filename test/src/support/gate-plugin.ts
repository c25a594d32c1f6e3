import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { GatewayGroup } from './use-gateways';

const GATE_TOOL_PLUGIN = fileURLToPath(
  new URL('../fixtures/gate-tool-plugin.mjs', import.meta.url),
);

/** The `hold` tool's gates for one test (see `fixtures/gate-tool-plugin.mjs`). */
export interface Gates {
  /** The plugin entry for a gateway's `plugins`. */
  readonly plugin: { module: string; options: { dir: string } };
  /** Lets every `hold` call waiting on `name` (or that will) return. */
  open(name: string): Promise<void>;
}

/** A folder of gates, removed after the test (with the group's other clean-ups). */
export async function createGates(group: GatewayGroup): Promise<Gates> {
  const dir = await mkdtemp(join(tmpdir(), 'keel-gates-'));
  group.defer(() => rm(dir, { recursive: true, force: true }));
  return {
    plugin: { module: GATE_TOOL_PLUGIN, options: { dir } },
    open: (name) => writeFile(join(dir, name), ''),
  };
}

/** A gateway log line: the `hold` tool of a turn started waiting on `gate`. */
export function holding(gate: string) {
  return (line: Record<string, unknown>) => line['msg'] === 'tool holding' && line['gate'] === gate;
}
