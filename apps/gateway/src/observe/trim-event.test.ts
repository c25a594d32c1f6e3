// An event over the bound is cut where its long strings are — a reply, a stale reply, a tool's
// input or output, a refusal — and marked `truncated`; a small one is returned as it is.
import type { TurnEvent } from '@keel/spec';
import { describe, expect, it } from 'vitest';
import { trimEvent } from './trim-event';

const base = { sessionId: 's', turnId: 't', at: 1 };
const long = 'x'.repeat(100_000);
const modelEvent = (event: Extract<TurnEvent, { type: 'model-event' }>['event']): TurnEvent => ({
  ...base,
  type: 'model-event',
  attempt: 1,
  event,
});
const trimmed = (event: TurnEvent) => trimEvent(event, JSON.stringify(event).length, 4096);
const size = (event: TurnEvent) => JSON.stringify(event).length;

describe('trimEvent', () => {
  it('returns an event within the bound unchanged', () => {
    const event: TurnEvent = { ...base, type: 'turn-start', messageId: 'm' };
    expect(trimmed(event)).toBe(event);
  });

  it("cuts a turn-end's text and stale reply to a preview", () => {
    const event: TurnEvent = {
      ...base,
      type: 'turn-end',
      outcome: {
        kind: 'resend',
        text: long,
        staleReply: long,
        messageId: 'm',
        turnId: 't',
        attempts: [],
      },
    };
    const cut = trimmed(event);
    expect(cut).toMatchObject({ truncated: true, outcome: { kind: 'resend', messageId: 'm' } });
    expect(size(cut)).toBeLessThanOrEqual(4096);
  });

  it("cuts a tool result's content, a refusal's text, and drops a long tool input", () => {
    for (const event of [
      modelEvent({ type: 'tool-result', toolUseId: 'u', content: long }),
      modelEvent({ type: 'refusal', text: long }),
      modelEvent({ type: 'tool-call', id: 'u', name: 'search', input: { query: long } }),
    ]) {
      const cut = trimmed(event);
      expect(cut).toMatchObject({ truncated: true, type: 'model-event' });
      expect(size(cut)).toBeLessThanOrEqual(4096);
    }
  });
});
