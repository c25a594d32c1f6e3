import type { TranscriptEntry } from '@keel/spec';

/**
 * Why it exists: a reply is stored once, in its assistant messages. A turn's end then leaves out
 * `text` when these rebuild it exactly, and a repeated `clientMessageId` rebuilds it from them.
 *
 * The reply of turn `turnId` as its assistant messages hold it: each message's text blocks
 * joined, the messages joined by a blank line (as a turn joins the replies of its steps). Looks
 * back from the end only as far as the turn's start, so a long transcript costs nothing more.
 */
export function replyTextOf(entries: readonly TranscriptEntry[], turnId: string): string {
  const texts: string[] = [];
  for (let index = entries.length - 1; index >= 0; index -= 1) {
    const entry = entries[index];
    if (entry === undefined) continue;
    if (entry.type === 'turn' && entry.phase === 'start' && entry.turnId === turnId) break;
    if (entry.type !== 'message' || entry.role !== 'assistant' || entry.turnId !== turnId) continue;
    let text = '';
    for (const block of entry.content) if (block.type === 'text') text += block.text;
    if (text !== '') texts.push(text);
  }
  return texts.reverse().join('\n\n');
}
