// ReplyTooLargeError is known across package copies by its Symbol.for marker (set to true), has its
// own name, and a message that names the cap.
import { describe, expect, it } from 'vitest';
import { ReplyTooLargeError } from '../src/reply-cap';

describe('ReplyTooLargeError', () => {
  it('carries the shared marker, its name and the cap in its message', () => {
    const error = new ReplyTooLargeError({ maxBytes: 1234 });
    const marker = Symbol.for('keel.error.ReplyTooLargeError');
    expect((error as unknown as Record<symbol, unknown>)[marker]).toBe(true);
    expect(ReplyTooLargeError.isInstance({ [marker]: true })).toBe(true);
    expect(error.name).toBe('ReplyTooLargeError');
    expect(error.message).toBe("The model's reply passed maxReplyBytes (1234 bytes of text)");
  });
});
