import { tmpdir } from 'node:os';
import { runChecked } from './run-command';

export interface NodeRuntime {
  /** `v24.x.y`. */
  version: string;
  /** The `node` binary. */
  path: string;
}

/**
 * The Node releases the packed-install test runs every consumer on: the lowest one `engines`
 * allows (20.19.0, the first 20.x that can `require()` ES modules) and the current LTS lines. Each
 * comes from the registry's `node` package (`npx -y node@24`), cached by npm after the first run.
 */
export const TESTED_NODE_RANGES = ['20.19.0', '22', '24'] as const;

/** The runtime running this test, then one binary per `TESTED_NODE_RANGES` entry (deduplicated). */
export async function nodeRuntimes(
  ranges: readonly string[] = TESTED_NODE_RANGES,
): Promise<NodeRuntime[]> {
  const runtimes: NodeRuntime[] = [{ version: process.version, path: process.execPath }];
  for (const range of ranges) {
    const { stdout } = await runChecked(
      'npx',
      ['--yes', `node@${range}`, '-p', 'process.version + "\\n" + process.execPath'],
      { cwd: tmpdir() },
    );
    const [version, path] = stdout.trim().split('\n').slice(-2);
    if (version === undefined || path === undefined || !version.startsWith(`v${range}`)) {
      throw new Error(`npx node@${range} printed ${JSON.stringify(stdout)}`);
    }
    if (!runtimes.some((runtime) => runtime.version === version)) runtimes.push({ version, path });
  }
  return runtimes;
}
