import { lstatIfExists } from './safe-file';

/** `missing`: no file; `empty`: zero bytes; `symlink` / `not-regular`: refused, never followed. */
export type TranscriptFileStatus = 'missing' | 'empty' | 'present' | 'symlink' | 'not-regular';

export interface GetTranscriptFileStatusOptions {
  signal?: AbortSignal;
}

/** Tells a missing transcript from an empty one (and from one that is not a plain file). */
export async function getTranscriptFileStatus(
  path: string,
  options: GetTranscriptFileStatusOptions = {},
): Promise<TranscriptFileStatus> {
  options.signal?.throwIfAborted();
  const stats = await lstatIfExists(path);
  if (stats === undefined) return 'missing';
  if (stats.isSymbolicLink()) return 'symlink';
  if (!stats.isFile()) return 'not-regular';
  return stats.size === 0 ? 'empty' : 'present';
}
