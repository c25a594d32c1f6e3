// Saves the spend ledger's snapshot to a JSON file of the gateway's own (a whole new file renamed
// over the old one, one write at a time), and reads it back at start-up.
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { SpendSnapshot } from './create-spend-ledger';

export async function readSpendFile(file: string): Promise<SpendSnapshot | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const value = JSON.parse(text) as Partial<SpendSnapshot>;
    return value.version === 1 && typeof value.keys === 'object' && value.keys !== null
      ? (value as SpendSnapshot)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A saver that writes the latest snapshot: while a write runs, further saves fold into one more
 * write after it. `flush` resolves once everything asked for is on disk.
 */
export function createSpendFileWriter(
  file: string,
  snapshot: () => SpendSnapshot,
  onError: (error: unknown) => void,
): { save(): void; flush(): Promise<void> } {
  let running: Promise<void> | undefined;
  let again = false;
  const write = async () => {
    await mkdir(dirname(file), { recursive: true });
    const temporary = `${file}.${process.pid}.tmp`;
    await writeFile(temporary, JSON.stringify(snapshot()));
    await rename(temporary, file);
  };
  const run = (): Promise<void> =>
    write()
      .catch(onError)
      .then(() => {
        if (!again) {
          running = undefined;
          return;
        }
        again = false;
        return run();
      });
  return {
    save() {
      if (running !== undefined) {
        again = true;
        return;
      }
      running = run();
    },
    flush: () => running ?? Promise.resolve(),
  };
}
