import { existsSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { runChecked } from './run-command';
import type { WorkspacePackage } from './workspace-packages';

/** A package packed as it would be published. */
export interface PackedPackage extends WorkspacePackage {
  /** Absolute path of the `.tgz`. */
  tarball: string;
}

/**
 * `pnpm pack`s each package into `destination`, one after the other (`workspace:` ranges become
 * versions, as `pnpm publish` does). The packages must be built: `turbo run test` builds every
 * dependency of the test workspace first; by hand, `pnpm build`.
 */
export async function packPackages(
  packages: readonly WorkspacePackage[],
  destination: string,
): Promise<Map<string, PackedPackage>> {
  const packed = new Map<string, PackedPackage>();
  for (const entry of packages) {
    if (!existsSync(join(entry.directory, 'dist'))) {
      throw new Error(`${entry.name} is not built (no ${entry.path}/dist): run pnpm build first.`);
    }
    const { stdout } = await runChecked('pnpm', ['pack', '--pack-destination', destination], {
      cwd: entry.directory,
    });
    const tarball = stdout
      .trim()
      .split('\n')
      .map((line) => line.trim())
      .reverse()
      .find((line) => line.endsWith('.tgz'));
    if (tarball === undefined || !isAbsolute(tarball) || !existsSync(tarball)) {
      throw new Error(`pnpm pack did not name its tarball for ${entry.name}:\n${stdout}`);
    }
    packed.set(entry.name, { ...entry, tarball });
  }
  return packed;
}
