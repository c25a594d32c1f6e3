import { cpSync, existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { runChecked } from './run-command';

const GIT_IDENTITY = [
  '-c',
  'user.name=Keel release test',
  '-c',
  'user.email=release-test@keel.invalid',
  '-c',
  'commit.gpgsign=false',
];

/**
 * Copies the repository's working tree as a fresh clone would hold it — tracked files and new
 * ones not ignored, as they are now; no `node_modules`, no `dist` — into `destination`, and
 * commits it there on a new `main` branch: a clean tree that never touches the real one.
 */
export async function copyWorkingTree(root: string, destination: string): Promise<void> {
  const { stdout } = await runChecked('git', ['ls-files', '-co', '--exclude-standard', '-z'], {
    cwd: root,
  });
  for (const file of new Set(stdout.split('\0').filter((path) => path !== ''))) {
    if (!existsSync(join(root, file))) continue; // deleted, not yet committed
    mkdirSync(dirname(join(destination, file)), { recursive: true });
    cpSync(join(root, file), join(destination, file));
  }
  await runChecked('git', ['init', '--quiet', '--initial-branch=main'], { cwd: destination });
  await commitAll(destination, 'The working tree under test');
}

/** `git add -A` and a commit, so that the tree is clean again. */
export async function commitAll(directory: string, message: string): Promise<void> {
  await runChecked('git', ['add', '-A'], { cwd: directory });
  await runChecked('git', [...GIT_IDENTITY, 'commit', '--quiet', '--allow-empty', '-m', message], {
    cwd: directory,
  });
}
