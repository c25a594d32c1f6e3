// A transcript's live part (`liveStart`, build-context.ts) is all a turn reads of its entries, and
// the facts let go of the rest without forgetting any (`TranscriptFactsIndex.forget`). Properties
// over random transcripts — messages, tool calls and results, turn starts and ends naming any
// message, steered ids, compactions keeping from any entry (before or after them, or none), model
// selections, in any order:
// - the model's context and the trailing orphaned tool calls are the same from the live part;
// - facts read up to a point, let go of the entries before the live part there, then read on,
//   tell the same answers, client message ids, pending messages and selected model as facts read
//   in one pass — or, for an answer or client message id let go, that it was (its hash kept) —
//   and hold of the entries let go only those `forget` returned (the cache weighs those).
// Hand-made mutants, each failing a property here: the turn entry before the kept part not kept
// (a kept message read as legacy), the last assistant message not kept (its orphans lost), the
// kept part's own first entry let go (`start + 1`), `forget` dropping a turn end's steered
// answers, `advance` re-reading from the transcript's start after a base.
import type { ContentBlock, TranscriptEntry } from '@keel/spec';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildModelContext, liveStart } from '../src/build-context';
import { trailingOrphans } from '../src/trailing-orphans';
import { createTranscriptFactsIndex, transcriptFacts } from '../src/transcript-facts';

type Step =
  | { kind: 'user'; client: boolean }
  | { kind: 'results'; answers: number[] }
  | { kind: 'assistant'; tools: number }
  | { kind: 'tool'; answers: number[] }
  | { kind: 'start'; message: number }
  | { kind: 'end'; message: number; steered: number[] }
  | { kind: 'compaction'; kept: number | null }
  | { kind: 'select'; model: number };

const index = fc.nat(40);
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('user'), client: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('results'), answers: fc.array(index) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('assistant'), tools: fc.nat(2) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('tool'), answers: fc.array(index) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('start'), message: index }) },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('end'), message: index, steered: fc.array(index) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('compaction'), kept: fc.option(fc.nat(80)) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('select'), model: fc.nat(3) }) },
);

/** The entries the steps make; indexes pick among what came before (any entry, for `kept`). */
function build(steps: readonly Step[]): TranscriptEntry[] {
  const entries: TranscriptEntry[] = [];
  const users: string[] = [];
  const tools: string[] = [];
  const pick = (list: readonly string[], at: number) => list[at % Math.max(list.length, 1)];
  const base = (n: number) => ({ id: `e${n}`, timestamp: '2026-12-04T00:00:00.000Z' });
  const results = (answers: number[]): ContentBlock[] =>
    answers.flatMap((at) => {
      const id = pick(tools, at);
      return id === undefined ? [] : [{ type: 'tool_result', toolUseId: id, content: 'r' }];
    });
  for (const s of steps) {
    const n = entries.length;
    switch (s.kind) {
      case 'user':
        users.push(`e${n}`);
        entries.push({
          type: 'message',
          ...base(n),
          messageId: `e${n}`,
          role: 'user',
          content: [{ type: 'text', text: `u${n}` }],
          ...(s.client ? { clientMessageId: `c${n}` } : {}),
        });
        break;
      case 'results':
      case 'tool': {
        const content = results(s.answers);
        if (content.length === 0) break;
        const role = s.kind === 'tool' ? 'tool' : 'user';
        entries.push({ type: 'message', ...base(n), messageId: `e${n}`, role, content });
        break;
      }
      case 'assistant': {
        const content: ContentBlock[] = [{ type: 'text', text: `a${n}` }];
        for (let t = 0; t < s.tools; t += 1) {
          tools.push(`t${n}-${t}`);
          content.push({ type: 'tool_use', id: `t${n}-${t}`, name: 'x', input: {} });
        }
        entries.push({
          type: 'message',
          ...base(n),
          messageId: `e${n}`,
          role: 'assistant',
          content,
        });
        break;
      }
      case 'start':
      case 'end': {
        const messageId = pick(users, s.message);
        const steered =
          s.kind === 'end' ? s.steered.flatMap((at) => pick(users, at) ?? []) : undefined;
        entries.push({
          type: 'turn',
          ...base(n),
          turnId: `turn${n}`,
          phase: s.kind,
          ...(messageId === undefined ? {} : { messageId }),
          ...(steered === undefined || steered.length === 0 ? {} : { steeredMessageIds: steered }),
          ...(s.kind === 'end' ? { outcome: 'reply' as const, text: `reply ${n}` } : {}),
        });
        break;
      }
      case 'compaction':
        entries.push({
          type: 'compaction',
          ...base(n),
          summary: `s${n}`,
          firstKeptEntryId: s.kept === null ? null : `e${s.kept}`,
          provenance: {
            producerId: 'p',
            attempts: 1,
            tokensBefore: 1,
            tokensAfter: 1,
            sourceDigest: 'sha256:0',
          },
        });
        break;
      case 'select':
        entries.push({ type: 'model-selection', ...base(n), model: `m${s.model}`, source: 'user' });
        break;
    }
  }
  return entries;
}

const transcripts = fc.array(step, { maxLength: 60 }).map(build);

type Facts = ReturnType<typeof transcriptFacts>;

/**
 * Whether `live` (facts that let entries go) tells what `whole` (read in one pass) does: every
 * answer and client message id either the same or among those forgotten (kept as a hash: looked
 * up in the whole transcript then), nothing more, and the same pending messages and model.
 */
function tellsAsWhole(live: Facts, whole: Facts): void {
  for (const [id, end] of whole.answers) {
    const held = live.answers.get(id);
    if (held === undefined) expect(live.forgotAnswerTo(id), `answer to ${id}`).toBe(true);
    else
      expect([held.turnId, held.outcome, held.text]).toEqual([end.turnId, end.outcome, end.text]);
  }
  for (const [id, message] of whole.byClientMessageId) {
    const held = live.byClientMessageId.get(id);
    if (held === undefined) expect(live.forgotClientMessageId(id), `client id ${id}`).toBe(true);
    else expect(held.messageId).toBe(message.messageId);
  }
  for (const id of live.answers.keys()) expect(whole.answers.has(id)).toBe(true);
  for (const id of live.byClientMessageId.keys())
    expect(whole.byClientMessageId.has(id)).toBe(true);
  expect(live.unanswered.map((message) => message.messageId)).toEqual(
    whole.unanswered.map((message) => message.messageId),
  );
  expect(live.selectedModel).toBe(whole.selectedModel);
}

describe("a transcript's live part", () => {
  it('gives the same model context and trailing orphans as the whole transcript', () => {
    fc.assert(
      fc.property(transcripts, (entries) => {
        const live = entries.slice(liveStart(entries));
        expect(buildModelContext(live)).toEqual(buildModelContext(entries));
        expect(trailingOrphans(live)).toEqual(trailingOrphans(entries));
      }),
      { numRuns: 2000 },
    );
  });

  it('is the whole of a transcript never compacted, and less once a compaction keeps less', () => {
    const plain = build([
      { kind: 'user', client: false },
      { kind: 'start', message: 0 },
    ]);
    expect(liveStart(plain)).toBe(0);
    const compacted = build([
      { kind: 'user', client: false },
      { kind: 'start', message: 0 },
      { kind: 'assistant', tools: 0 },
      { kind: 'end', message: 0, steered: [] },
      { kind: 'user', client: false },
      { kind: 'start', message: 1 },
      { kind: 'assistant', tools: 0 },
      { kind: 'end', message: 1, steered: [] },
      { kind: 'compaction', kept: 4 },
    ]);
    // From the turn end before the kept message: a turn entry precedes the kept part.
    expect(liveStart(compacted)).toBe(3);
  });

  it('lets facts go of what precedes it without forgetting any', () => {
    fc.assert(
      fc.property(transcripts, fc.nat(60), (entries, cut) => {
        const at = Math.min(cut, entries.length);
        const index = createTranscriptFactsIndex();
        index.advance(entries.slice(0, at));
        const start = liveStart(entries.slice(0, at));
        const held = new Set<object>(index.forget(entries.slice(0, start)).kept);
        const facts = index.advance(entries.slice(start), start);
        tellsAsWhole(facts, transcriptFacts(entries));
        // Of the entries let go, the facts hold only what `forget` returned (what gets weighed).
        const live = new Set<object>(entries.slice(start));
        const holds = [
          ...facts.answers.values(),
          ...facts.byClientMessageId.values(),
          ...facts.unanswered,
        ];
        for (const value of holds) expect(live.has(value) || held.has(value)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});
