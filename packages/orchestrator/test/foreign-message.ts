import type { TranscriptEntry } from '@keel/spec';

/** A user message another gateway wrote to the session (a foreign write: a takeover). */
export function foreignMessage(id = 'foreign-1'): TranscriptEntry {
  return {
    type: 'message',
    id,
    messageId: id,
    timestamp: new Date().toISOString(),
    role: 'user',
    content: [{ type: 'text', text: 'written by another gateway' }],
  };
}
