import type { ContentBlock, MessageEntry, TranscriptEntry } from '@keel/spec';
import fc from 'fast-check';
import { messageEntry } from './message-entry';

interface StepSpec {
  text: string;
  tools: number;
  /** Results come back in a `user` message instead of a `tool` message. */
  resultsAsUser: boolean;
  /** Answer the tool calls in reverse order, one message per result. */
  splitResults: boolean;
}

interface TurnSpec {
  request: string;
  steps: StepSpec[];
  /** Leave the last step's tool calls unanswered (an orphan), as an interrupted turn does. */
  orphan: boolean;
  /** Turn records around the turn: `start`, and `end` with its outcome and user-facing text. */
  withTurnRecord: boolean;
  /**
   * The turn's tool ids restart (`toolu_<step>_<n>`), as after a CLI resume: they repeat in every
   * such turn, and a result answers the nearest use before it.
   */
  reuseIds?: boolean;
  /** A `model-selection` entry before the turn. */
  selectModel?: boolean;
}

const text = fc.string({ minLength: 0, maxLength: 120 });

const stepSpec: fc.Arbitrary<StepSpec> = fc.record({
  text,
  tools: fc.integer({ min: 0, max: 3 }),
  resultsAsUser: fc.boolean(),
  splitResults: fc.boolean(),
});

const turnSpec: fc.Arbitrary<TurnSpec> = fc.record({
  request: fc.string({ minLength: 1, maxLength: 200 }),
  steps: fc.array(stepSpec, { minLength: 0, maxLength: 4 }),
  orphan: fc.boolean(),
  withTurnRecord: fc.boolean(),
  reuseIds: fc.boolean(),
  selectModel: fc.boolean(),
});

/** What a `model-selection` entry names: looks like a relative path, must never be required. */
export const SELECTED_MODEL = 'openai/gpt-4.1';

/** The text of turn `index`'s `end` record: holds a path that no message holds. */
export function turnEndText(index: number): string {
  return `Reply delivered; see /var/log/turn-only/${index}.log`;
}

/**
 * Builds a transcript from turn specs: user requests, tool calls with results, orphans, reused
 * tool ids, turn records and model selections.
 */
export function buildTranscript(turns: readonly TurnSpec[]): TranscriptEntry[] {
  const entries: TranscriptEntry[] = [];
  let counter = 0;
  const nextId = (prefix: string): string => `${prefix}-${++counter}`;
  const timestamp = '2026-01-01T00:00:00.000Z';
  const message = (role: MessageEntry['role'], content: ContentBlock[]): MessageEntry =>
    messageEntry(nextId('m'), role, content);
  for (const [turnIndex, turn] of turns.entries()) {
    const turnId = `turn-${turnIndex}`;
    if (turn.selectModel === true) {
      entries.push({
        type: 'model-selection',
        id: nextId('s'),
        timestamp,
        model: SELECTED_MODEL,
        source: 'user',
      });
    }
    if (turn.withTurnRecord) {
      entries.push({ type: 'turn', id: nextId('t'), timestamp, turnId, phase: 'start' });
    }
    entries.push(message('user', [{ type: 'text', text: turn.request }]));
    for (const [stepIndex, step] of turn.steps.entries()) {
      const calls = Array.from({ length: step.tools }, (_, call) => ({
        type: 'tool_use' as const,
        id: turn.reuseIds === true ? `toolu_${stepIndex}_${call}` : nextId('toolu'),
        name: 'read_file',
        input: { path: `/src/file-${counter}.ts` },
      }));
      entries.push(message('assistant', [{ type: 'text', text: step.text }, ...calls]));
      const isLast = stepIndex === turn.steps.length - 1;
      if (calls.length === 0 || (isLast && turn.orphan)) continue;
      const results: ContentBlock[] = calls.map((call) => ({
        type: 'tool_result',
        toolUseId: call.id,
        content: `contents of ${String(call.input.path)}`,
      }));
      const role = step.resultsAsUser ? 'user' : 'tool';
      if (step.splitResults) {
        for (const result of results.reverse()) entries.push(message(role, [result]));
      } else {
        entries.push(message(role, results));
      }
    }
    entries.push(message('assistant', [{ type: 'text', text: `done with turn ${turnIndex}` }]));
    if (turn.withTurnRecord) {
      entries.push({
        type: 'turn',
        id: nextId('t'),
        timestamp,
        turnId,
        phase: 'end',
        outcome: turn.orphan ? 'aborted' : 'reply',
        text: turnEndText(turnIndex),
        model: SELECTED_MODEL,
      });
    }
  }
  return entries;
}

/** Random transcripts of up to `maxTurns` turns. */
export function transcriptArbitrary(maxTurns = 12): fc.Arbitrary<TranscriptEntry[]> {
  return fc.array(turnSpec, { minLength: 0, maxLength: maxTurns }).map(buildTranscript);
}

/**
 * Every tool_use / tool_result pair as `[use, result]` message indexes: a result answers the
 * nearest use of its id before it (ids may repeat). A reference, quadratic on purpose.
 */
export function toolPairs(messages: readonly MessageEntry[]): Array<[number, number]> {
  const found: Array<[number, number]> = [];
  messages.forEach((message, index) => {
    for (const block of message.content) {
      if (block.type !== 'tool_result') continue;
      for (let use = index - 1; use >= 0; use -= 1) {
        const used = messages[use]?.content.some(
          (candidate) => candidate.type === 'tool_use' && candidate.id === block.toolUseId,
        );
        if (used === true) {
          found.push([use, index]);
          break;
        }
      }
    }
  });
  return found;
}

/** Messages of a transcript (no turn or model-selection records). */
export function messagesOf(entries: readonly TranscriptEntry[]): MessageEntry[] {
  return entries.filter((entry): entry is MessageEntry => entry.type === 'message');
}
