import type {
  ContentBlock,
  MessageEntry,
  ModelSelectionEntry,
  Role,
  TurnEntry,
  TurnOutcome,
} from '@keel/spec';

/** Makes the entries a turn writes; ids and times come from the orchestrator. */
export interface EntryFactory {
  message(fields: {
    /** Default a new id. */
    id?: string;
    role: Role;
    content: ContentBlock[];
    turnId?: string;
    clientMessageId?: string;
    model?: string;
    provider?: string;
    usage?: MessageEntry['usage'];
  }): MessageEntry;
  turnStart(fields: { turnId: string; messageId: string; clientMessageId?: string }): TurnEntry;
  /** `text: false`: the reply is left out (its assistant messages hold it; see `replyTextOf`). */
  turnEnd(outcome: TurnOutcome, options?: { text?: boolean }): TurnEntry;
  modelSelection(fields: {
    model: string;
    source: ModelSelectionEntry['source'];
    turnId?: string;
  }): ModelSelectionEntry;
}

export function createEntryFactory(createId: () => string, now: () => number): EntryFactory {
  const base = () => ({ id: createId(), timestamp: new Date(now()).toISOString() });
  return {
    message({ id, ...fields }) {
      const stamp = { ...base(), ...(id === undefined ? {} : { id }) };
      return dropUndefined({ type: 'message', ...stamp, messageId: stamp.id, ...fields });
    },
    turnStart(fields) {
      return dropUndefined({ type: 'turn', ...base(), phase: 'start', ...fields });
    },
    turnEnd(outcome, options = {}) {
      return dropUndefined({
        type: 'turn',
        ...base(),
        phase: 'end',
        turnId: outcome.turnId,
        messageId: outcome.messageId,
        clientMessageId: outcome.clientMessageId,
        steeredMessageIds:
          outcome.steeredMessageIds !== undefined && outcome.steeredMessageIds.length > 0
            ? outcome.steeredMessageIds
            : undefined,
        outcome: outcome.kind,
        text: options.text === false ? undefined : outcome.text,
        model: outcome.model,
        provider: outcome.provider,
        errorKind: outcome.errorKind,
        retryAfterMs: outcome.retryAfterMs,
        usage: outcome.usage,
      });
    },
    modelSelection(fields) {
      return dropUndefined({ type: 'model-selection', ...base(), ...fields });
    },
  };
}

/**
 * JSON lines stay free of `"field": undefined` noise (and `exactOptionalPropertyTypes`-clean).
 * A copy with only the defined fields, never `delete`: V8 turns an object that loses a property
 * into a dictionary (about 800 bytes for a turn's end instead of about 100), and the transcript
 * cache keeps the entries this process wrote (issue 20).
 */
function dropUndefined<T extends object>(value: T): T {
  const kept: Record<string, unknown> = {};
  const fields = value as Record<string, unknown>;
  // `for…in` over own keys, not `Object.entries`: no array of pairs per entry (same keys, same
  // order).
  for (const key in fields) {
    if (!Object.hasOwn(fields, key)) continue;
    const field = fields[key];
    if (field !== undefined) kept[key] = field;
  }
  return kept as T;
}
