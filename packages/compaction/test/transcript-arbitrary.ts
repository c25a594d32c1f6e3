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
  /** Leave the last step's tool calls unanswered (an orphan). */
  orphan: boolean;
  withTurnRecord: boolean;
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
});

/** Builds a transcript from turn specs: user requests, tool calls with results, orphans, turn records. */
export function buildTranscript(turns: readonly TurnSpec[]): TranscriptEntry[] {
  const entries: TranscriptEntry[] = [];
  let counter = 0;
  const nextId = (prefix: string): string => `${prefix}-${++counter}`;
  const timestamp = '2026-01-01T00:00:00.000Z';
  const message = (role: MessageEntry['role'], content: ContentBlock[]): MessageEntry =>
    messageEntry(nextId('m'), role, content);
  for (const [turnIndex, turn] of turns.entries()) {
    if (turn.withTurnRecord) {
      entries.push({
        type: 'turn',
        id: nextId('t'),
        timestamp,
        turnId: `turn-${turnIndex}`,
        phase: 'start',
      });
    }
    entries.push(message('user', [{ type: 'text', text: turn.request }]));
    for (const [stepIndex, step] of turn.steps.entries()) {
      const calls = Array.from({ length: step.tools }, () => ({
        type: 'tool_use' as const,
        id: nextId('toolu'),
        name: 'read_file',
        input: { path: `/src/file-${counter}.ts` },
      }));
      entries.push(message('assistant', [{ type: 'text', text: step.text }, ...calls]));
      const isLast = turnIndex === turns.length - 1 && stepIndex === turn.steps.length - 1;
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
  }
  return entries;
}

/** Random transcripts of up to `maxTurns` turns. */
export function transcriptArbitrary(maxTurns = 12): fc.Arbitrary<TranscriptEntry[]> {
  return fc.array(turnSpec, { minLength: 0, maxLength: maxTurns }).map(buildTranscript);
}

/** Messages of a transcript (no turn records). */
export function messagesOf(entries: readonly TranscriptEntry[]): MessageEntry[] {
  return entries.filter((entry): entry is MessageEntry => entry.type === 'message');
}
