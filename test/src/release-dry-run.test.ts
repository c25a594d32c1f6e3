/**
 * The release flow on a copy of the working tree, committed on `main` in a temporary folder (the
 * real tree's versions are never touched): a fresh `pnpm install` says nothing about bins it
 * cannot link, `pnpm changeset version` turns the pending changesets into versions and
 * changelogs, and `pnpm -r publish --dry-run` publishes every published package from the clean
 * tree — with pnpm's own git checks (clean tree, `main` branch) and the registry asked which
 * versions exist.
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CommandResult, runChecked, runCommand } from './support/run-command';
import { commitAll, copyWorkingTree } from './support/working-tree-copy';
import {
  publishedPackages,
  REPOSITORY_ROOT,
  readManifest,
  workspacePackages,
} from './support/workspace-packages';

const LIMIT_MS = 600_000;

/** The packages named in the pending changesets' frontmatter. */
function pendingReleases(root: string): string[] {
  const directory = join(root, '.changeset');
  const names = readdirSync(directory)
    .filter((file) => file.endsWith('.md') && file !== 'README.md')
    .flatMap((file) => {
      const frontmatter = readFileSync(join(directory, file), 'utf8').split(/^---$/m)[1] ?? '';
      return [...frontmatter.matchAll(/^["']?(@keel\/[a-z-]+)["']?\s*:/gm)].map(
        (match) => match[1] as string,
      );
    });
  return [...new Set(names)].sort();
}

let copy: string;
let install: CommandResult;
let publish: CommandResult;
const pending = pendingReleases(REPOSITORY_ROOT);
const published = publishedPackages();

beforeAll(async () => {
  copy = join(realpathSync(mkdtempSync(join(tmpdir(), 'keel-release-'))), 'keel');
  await copyWorkingTree(REPOSITORY_ROOT, copy);
  install = await runCommand(
    'pnpm',
    ['install', '--frozen-lockfile', '--prefer-offline', '--ignore-scripts'],
    { cwd: copy },
  );
  if (install.code !== 0)
    throw new Error(`pnpm install failed:\n${install.stdout}\n${install.stderr}`);
  // CI builds before it publishes; the workspace's builds stand in for that step here.
  for (const entry of published) {
    cpSync(join(entry.directory, 'dist'), join(copy, entry.path, 'dist'), { recursive: true });
  }
  await runChecked('pnpm', ['changeset', 'version'], { cwd: copy });
  await commitAll(copy, 'Version Packages');
  publish = await runCommand('pnpm', ['-r', 'publish', '--dry-run'], { cwd: copy });
}, LIMIT_MS);

afterAll(async () => {
  if (copy !== undefined) await rm(join(copy, '..'), { recursive: true, force: true });
}, LIMIT_MS);

describe('a release from a clean tree', () => {
  it('starts from a fresh install that links every bin before anything is built', () => {
    expect(`${install.stdout}${install.stderr}`).not.toMatch(/Failed to create bin|ENOENT/);
    const bins = workspacePackages(copy).flatMap((entry) =>
      Object.values(entry.manifest.bin ?? {}),
    );
    expect(bins.length).toBeGreaterThan(0);
  });

  it('versions every package a pending changeset names, with a changelog entry', () => {
    expect(pending.length).toBeGreaterThan(0);
    const remaining = readdirSync(join(copy, '.changeset')).filter(
      (file) => file.endsWith('.md') && file !== 'README.md',
    );
    expect(remaining).toEqual([]);
    for (const name of pending) {
      const entry = published.find((candidate) => candidate.name === name);
      expect(entry, `${name} is named by a changeset but not published`).toBeDefined();
      if (entry === undefined) continue;
      const bumped = readManifest(join(copy, entry.path)).version;
      expect(bumped, name).not.toBe(entry.manifest.version);
      expect(readFileSync(join(copy, entry.path, 'CHANGELOG.md'), 'utf8')).toContain(
        `## ${bumped}`,
      );
    }
  });

  it('publishes (dry run) every versioned package and nothing private', () => {
    expect(publish.code, `${publish.stdout}\n${publish.stderr}`).toBe(0);
    const released = `${publish.stdout}\n${publish.stderr}`
      .split('\n')
      .flatMap((line) => /^\+ (@keel\/[a-z-]+@\S+)$/.exec(line.trim())?.[1] ?? []);
    const versioned = published
      .filter((entry) => pending.includes(entry.name))
      .map((entry) => `${entry.name}@${readManifest(join(copy, entry.path)).version}`);
    expect(released).toEqual(expect.arrayContaining(versioned));
    const publishable = published.map((entry) => entry.name);
    for (const line of released) expect(publishable).toContain(line.replace(/@[^@]*$/, ''));
  });

  it('never touches the real tree: its versions are still the unreleased ones', () => {
    for (const entry of published) {
      expect(readManifest(entry.directory).version, entry.name).toBe(entry.manifest.version);
      expect(readManifest(join(copy, entry.path)).name).toBe(entry.name);
    }
  });
});
