export interface CompactionChunk {
  /** First message of the chunk (index into the compacted messages). */
  start: number;
  /** One past the last message of the chunk. */
  end: number;
  tokens: number;
  /** A single message larger than the budget; the summarizer shortens its rendering. */
  oversized: boolean;
}

/**
 * Splits consecutive messages into chunks of at most `maxChunkTokens` each, in order, greedily.
 * A message larger than the budget forms a chunk of its own marked `oversized`.
 */
export function chunkMessages(
  tokens: readonly number[],
  maxChunkTokens: number,
): CompactionChunk[] {
  const budget = Math.max(1, Math.floor(maxChunkTokens));
  const chunks: CompactionChunk[] = [];
  let start = 0;
  let sum = 0;
  for (let index = 0; index < tokens.length; index += 1) {
    const size = tokens[index] ?? 0;
    if (index > start && sum + size > budget) {
      chunks.push({ start, end: index, tokens: sum, oversized: false });
      start = index;
      sum = 0;
    }
    sum += size;
    if (sum > budget) {
      chunks.push({ start, end: index + 1, tokens: sum, oversized: true });
      start = index + 1;
      sum = 0;
    }
  }
  if (start < tokens.length)
    chunks.push({ start, end: tokens.length, tokens: sum, oversized: false });
  return chunks;
}
