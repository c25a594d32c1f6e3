import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root folder. */
export const REPOSITORY_ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/** The fields of a `package.json` these tests read. */
export interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  license?: string;
  engines?: Record<string, string>;
  files?: string[];
  bin?: Record<string, string>;
  exports?: Record<string, unknown>;
  repository?: { type?: string; url?: string; directory?: string };
  homepage?: string;
  bugs?: { url?: string };
  keywords?: string[];
  publishConfig?: { access?: string; provenance?: boolean };
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

export interface WorkspacePackage {
  name: string;
  /** Absolute folder. */
  directory: string;
  /** Folder relative to the repository root, with `/` (e.g. `packages/spec`). */
  path: string;
  manifest: Manifest;
}

export function readManifest(directory: string): Manifest {
  return JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8')) as Manifest;
}

/** The folders `pnpm-workspace.yaml` names (`dir/*` globs one level deep, or exact folders). */
function workspaceFolders(root: string): string[] {
  const yaml = readFileSync(join(root, 'pnpm-workspace.yaml'), 'utf8');
  const section = yaml.split(/^packages:\s*$/m)[1]?.split(/^\S/m)[0] ?? '';
  const patterns = [...section.matchAll(/^\s+-\s+["']?([^"'\s]+)["']?\s*$/gm)].map(
    (match) => match[1] as string,
  );
  return patterns.flatMap((pattern) => {
    if (!pattern.endsWith('/*')) return [join(root, pattern)];
    const parent = join(root, pattern.slice(0, -2));
    if (!existsSync(parent)) return [];
    return readdirSync(parent, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => join(parent, entry.name));
  });
}

/** Every package of the workspace, private ones included, sorted by name. */
export function workspacePackages(root: string = REPOSITORY_ROOT): WorkspacePackage[] {
  return workspaceFolders(root)
    .filter((directory) => existsSync(join(directory, 'package.json')))
    .map((directory) => {
      const manifest = readManifest(directory);
      const path = relative(root, directory).split('\\').join('/');
      return { name: manifest.name, directory, path, manifest };
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** The packages that go to the registry: every workspace package that is not `private`. */
export function publishedPackages(root: string = REPOSITORY_ROOT): WorkspacePackage[] {
  return workspacePackages(root).filter((entry) => entry.manifest.private !== true);
}

/**
 * `name` and every `@keel/*` package it depends on at run time, transitively, by name (what a
 * user's `npm install name` brings from the Keel scope).
 */
export function keelClosure(name: string, packages: readonly WorkspacePackage[]): string[] {
  const byName = new Map(packages.map((entry) => [entry.name, entry]));
  const seen = new Set<string>();
  const visit = (current: string) => {
    if (seen.has(current)) return;
    const entry = byName.get(current);
    if (entry === undefined) throw new Error(`${current} is not a published workspace package.`);
    seen.add(current);
    for (const dependency of Object.keys(entry.manifest.dependencies ?? {})) {
      if (dependency.startsWith('@keel/')) visit(dependency);
    }
  };
  visit(name);
  return [...seen].sort();
}
