import type { ContentBlock, MessageEntry, Role } from '@keel/spec';

/** A v2 message entry (its `messageId` equal to its `id`); a string is one text block. */
export function messageEntry(
  id: string,
  role: Role,
  content: string | ContentBlock[],
  extra: Partial<MessageEntry> = {},
): MessageEntry {
  return {
    type: 'message',
    id,
    messageId: id,
    timestamp: '2026-01-01T00:00:00.000Z',
    role,
    content: typeof content === 'string' ? [{ type: 'text', text: content }] : content,
    ...extra,
  };
}
