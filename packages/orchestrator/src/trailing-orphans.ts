import type { TranscriptEntry } from '@keel/spec';

/**
 * Ids of `tool_use` blocks in the transcript's last assistant message that no later
 * `tool_result` answers — what a crash or a killed process leaves behind mid-tool.
 */
export function trailingOrphans(entries: readonly TranscriptEntry[]): string[] {
  const answered = new Set<string>();
  for (let index = entries.length - 1; index >= 0; index -= 1) {
    const entry = entries[index] as TranscriptEntry;
    if (entry.type !== 'message') continue;
    if (entry.role === 'assistant') {
      return entry.content.flatMap((block) =>
        block.type === 'tool_use' && !answered.has(block.id) ? [block.id] : [],
      );
    }
    for (const block of entry.content)
      if (block.type === 'tool_result') answered.add(block.toolUseId);
  }
  return [];
}
