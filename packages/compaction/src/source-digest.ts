import { createHash } from 'node:crypto';
import type { TranscriptEntry } from '@keel/spec';

/** `sha256:<hex>` over entries serialized one JSON line each, as they are stored. */
export function computeSourceDigest(entries: readonly TranscriptEntry[]): string {
  const hash = createHash('sha256');
  for (const entry of entries) hash.update(`${JSON.stringify(entry)}\n`);
  return `sha256:${hash.digest('hex')}`;
}
