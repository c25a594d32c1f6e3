// The entries a turn writes (entries.ts): a turn end keeps its text unless told not to, lists the
// messages it folded in only when there are some (an empty list is no member), and carries every
// field of the outcome it has; a message given its id uses it as its message id too.
import type { TurnOutcome } from '@keel/spec';
import { describe, expect, it } from 'vitest';
import { createEntryFactory } from '../src/entries';

const factory = createEntryFactory(
  () => 'new-id',
  () => 0,
);
const at = new Date(0).toISOString();
const outcome: TurnOutcome = {
  kind: 'error',
  turnId: 't1',
  messageId: 'm1',
  clientMessageId: 'c1',
  text: 'It failed.',
  model: 'anthropic/primary',
  provider: 'anthropic',
  errorKind: 'rate_limit',
  retryAfterMs: 2_000,
  usage: { inputTokens: 3, outputTokens: 0 },
  attempts: [],
};

describe('the entry factory', () => {
  it('a turn end carries the outcome’s fields and its text by default', () => {
    expect(factory.turnEnd({ ...outcome, steeredMessageIds: ['m2'] })).toStrictEqual({
      type: 'turn',
      id: 'new-id',
      timestamp: at,
      phase: 'end',
      turnId: 't1',
      messageId: 'm1',
      clientMessageId: 'c1',
      steeredMessageIds: ['m2'],
      outcome: 'error',
      text: 'It failed.',
      model: 'anthropic/primary',
      provider: 'anthropic',
      errorKind: 'rate_limit',
      retryAfterMs: 2_000,
      usage: { inputTokens: 3, outputTokens: 0 },
    });
  });

  it('an empty list of folded messages is no member; `text: true` keeps the text', () => {
    const end = factory.turnEnd({ ...outcome, steeredMessageIds: [] }, { text: true });
    expect(end).not.toHaveProperty('steeredMessageIds');
    expect(end.text).toBe('It failed.');
  });

  it('a message given its id uses it for both ids; one without gets a new id', () => {
    const given = factory.message({ id: 'm9', role: 'user', content: [] });
    expect(given).toMatchObject({ id: 'm9', messageId: 'm9' });
    const fresh = factory.message({ role: 'assistant', content: [] });
    expect(fresh).toMatchObject({ id: 'new-id', messageId: 'new-id' });
  });

  it('a model selection names its model, source and turn', () => {
    expect(
      factory.modelSelection({ model: 'backup/fallback', source: 'user', turnId: 't1' }),
    ).toStrictEqual({
      type: 'model-selection',
      id: 'new-id',
      timestamp: at,
      model: 'backup/fallback',
      source: 'user',
      turnId: 't1',
    });
  });
});
