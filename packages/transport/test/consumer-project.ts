import { cpSync, existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * A throwaway project that installs packages by copying them into its own flat `node_modules`
 * (no symlinks), so that Node and TypeScript resolve everything from inside it and a package
 * that is not copied in is really absent.
 */
export interface ConsumerProject {
  readonly directory: string;
  /** Installed package name → the directory it was copied from. */
  readonly installed: ReadonlyMap<string, string>;
}

interface Manifest {
  dependencies?: Record<string, string>;
}

/** The real directory of package `name` as Node finds it from `fromDirectory` (walking up). */
export function findPackageDirectory(name: string, fromDirectory: string): string {
  let directory = fromDirectory;
  while (true) {
    const candidate = join(directory, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return realpathSync(candidate);
    const parent = dirname(directory);
    if (parent === directory)
      throw new Error(`Package ${name} is not installed (from ${fromDirectory}).`);
    directory = parent;
  }
}

/** Creates `directory` with an ESM `package.json` and an empty `node_modules`. */
export function createConsumerProject(directory: string): ConsumerProject {
  mkdirSync(join(directory, 'node_modules'), { recursive: true });
  writeFileSync(
    join(directory, 'package.json'),
    `${JSON.stringify({ name: 'keel-consumer', private: true, type: 'module' }, null, 2)}\n`,
  );
  return { directory, installed: new Map() };
}

function claim(project: ConsumerProject, name: string, source: string): boolean {
  const installed = project.installed as Map<string, string>;
  const already = installed.get(name);
  if (already === source) return false;
  if (already !== undefined) {
    throw new Error(
      `${name} is needed from both ${already} and ${source}; a flat copy cannot hold both.`,
    );
  }
  installed.set(name, source);
  return true;
}

/** Installs a workspace package as its tarball would: `package.json` plus a built `dist`. */
export function installBuiltPackage(
  project: ConsumerProject,
  options: { name: string; packageDirectory: string; distDirectory?: string },
): void {
  if (!claim(project, options.name, options.packageDirectory)) return;
  const distDirectory = options.distDirectory ?? join(options.packageDirectory, 'dist');
  if (!existsSync(join(distDirectory, 'index.js'))) {
    throw new Error(`${options.name} is not built (${distDirectory}); run pnpm build first.`);
  }
  const target = join(project.directory, 'node_modules', options.name);
  mkdirSync(target, { recursive: true });
  cpSync(join(options.packageDirectory, 'package.json'), join(target, 'package.json'));
  cpSync(distDirectory, join(target, 'dist'), { recursive: true });
}

/**
 * Copies an installed package (found from `fromDirectory`) and, recursively, every package in its
 * `dependencies` into the project. Optional peer dependencies are not installed. `installedAs`
 * names the directory it is installed under when that differs from `name` (an npm alias such as
 * `openai7` for `openai@^7`).
 */
export function installPackageCopy(
  project: ConsumerProject,
  name: string,
  fromDirectory: string,
  installedAs: string = name,
): void {
  const source = findPackageDirectory(installedAs, fromDirectory);
  if (!claim(project, name, source)) return;
  cpSync(source, join(project.directory, 'node_modules', name), {
    recursive: true,
    dereference: true,
  });
  const manifest = JSON.parse(readFileSync(join(source, 'package.json'), 'utf8')) as Manifest;
  for (const dependency of Object.keys(manifest.dependencies ?? {})) {
    installPackageCopy(project, dependency, source);
  }
}
