import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runChecked } from './run-command';

/**
 * A throwaway npm project outside the workspace: an ESM `package.json` and whatever plain `npm
 * install` puts in its `node_modules` (no workspace, no links, no pnpm).
 */
export interface ConsumerProject {
  readonly directory: string;
}

/** One entry of the project's `package-lock.json`. */
export interface InstalledPackage {
  name: string;
  version: string;
  /** Where it came from: `file:…tgz` for a tarball; absent for the registry (per npmrc). */
  resolved?: string;
  dependencies: string[];
}

/** Creates `directory` with `{ "private": true, "type": "module" }`. */
export function createConsumerProject(directory: string): ConsumerProject {
  mkdirSync(directory, { recursive: true });
  writeFileSync(
    join(directory, 'package.json'),
    `${JSON.stringify({ name: 'keel-consumer', private: true, type: 'module' }, null, 2)}\n`,
  );
  return { directory };
}

/**
 * `npm install` of `specifiers` (tarball paths, `name@range`) into the project, with the user's
 * npm cache and config (`--prefer-offline`: a warm cache needs no network).
 */
export async function npmInstall(
  project: ConsumerProject,
  specifiers: readonly string[],
): Promise<void> {
  await runChecked(
    'npm',
    ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', ...specifiers],
    { cwd: project.directory },
  );
}

interface LockEntry {
  name?: string;
  version?: string;
  resolved?: string;
  link?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

/** Every package npm installed, read from the project's `package-lock.json`. */
export function installedPackages(project: ConsumerProject): InstalledPackage[] {
  const lock = JSON.parse(readFileSync(join(project.directory, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, LockEntry>;
  };
  return Object.entries(lock.packages)
    .filter(([path]) => path !== '')
    .map(([path, entry]) => {
      const name =
        entry.name ?? path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
      const requiredPeers = Object.keys(entry.peerDependencies ?? {}).filter(
        (peer) => entry.peerDependenciesMeta?.[peer]?.optional !== true,
      );
      return {
        name,
        version: entry.version ?? '',
        ...(entry.resolved === undefined ? {} : { resolved: entry.resolved }),
        dependencies: [
          ...Object.keys(entry.dependencies ?? {}),
          ...Object.keys(entry.optionalDependencies ?? {}),
          ...requiredPeers,
        ],
      };
    });
}

/** `roots` and everything they need, transitively, among the installed packages (names, sorted). */
export function dependencyClosure(
  installed: readonly InstalledPackage[],
  roots: readonly string[],
): string[] {
  const seen = new Set<string>();
  const pending = [...roots];
  while (pending.length > 0) {
    const name = pending.pop() as string;
    if (seen.has(name)) continue;
    seen.add(name);
    for (const entry of installed) if (entry.name === name) pending.push(...entry.dependencies);
  }
  return [...seen].filter((name) => installed.some((entry) => entry.name === name)).sort();
}
