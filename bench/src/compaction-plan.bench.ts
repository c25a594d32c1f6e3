/**
 * Row 6: planning time of `planCompaction` for transcripts of about 10k, 100k and 1M estimated
 * tokens. Target: linear in size, under 50 ms at 1M tokens. Also shown, not targeted: the token
 * estimate of 1M characters of mixed Japanese and English text (the per-character path; all-Latin
 * text is measured by its length). Run: `pnpm bench compaction`.
 */
import type { MessageEntry, TranscriptEntry } from '@keel/compaction';
import { estimateMessageTokens, estimateTextTokens, planCompaction } from '@keel/compaction';
import { pick } from './lib/env';
import { publish } from './lib/result';
import { ms, ratio } from './lib/stats';

const SIZES = pick([10_000, 100_000, 1_000_000], [10_000, 100_000]);
const RUNS = pick(15, 3);

/** A coding-agent-like transcript: requests, tool calls with results, answers, turn records. */
function buildTranscript(targetTokens: number): TranscriptEntry[] {
  const entries: TranscriptEntry[] = [];
  const timestamp = '2026-01-01T00:00:00.000Z';
  let tokens = 0;
  let counter = 0;
  const push = (entry: TranscriptEntry): void => {
    entries.push(entry);
    if (entry.type === 'message') tokens += estimateMessageTokens(entry);
  };
  const message = (role: MessageEntry['role'], content: MessageEntry['content']): MessageEntry => {
    const id = `m-${++counter}`;
    return { type: 'message', id, messageId: id, timestamp, role, content };
  };
  while (tokens < targetTokens) {
    const turn = counter;
    push({ type: 'turn', id: `t-${turn}`, timestamp, turnId: `turn-${turn}`, phase: 'start' });
    push(
      message('user', [
        {
          type: 'text',
          text: `Please look at src/module-${turn}.ts and fix the failing test. `.repeat(3),
        },
      ]),
    );
    for (let step = 0; step < 3; step += 1) {
      const id = `toolu_${turn}_${step}`;
      push(
        message('assistant', [
          { type: 'text', text: 'Let me read the file first. ' },
          {
            type: 'tool_use',
            id,
            name: 'read_file',
            input: { path: `/work/src/module-${turn}-${step}.ts` },
          },
        ]),
      );
      push(
        message('tool', [
          { type: 'tool_result', toolUseId: id, content: 'export const value = 42;\n'.repeat(40) },
        ]),
      );
    }
    push(
      message('assistant', [{ type: 'text', text: 'Fixed the test and committed. '.repeat(4) }]),
    );
  }
  return entries;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

const results: Array<{ tokens: number; entries: number; ms: number }> = [];
for (const size of SIZES) {
  const transcript = buildTranscript(size);
  const options = {
    contextWindowTokens: Math.floor(size * 0.8),
    reserveTokens: Math.floor(size * 0.05),
    keepRecentTokens: Math.floor(size * 0.1),
  };
  for (let warm = 0; warm < 3; warm += 1) planCompaction(transcript, options);
  const times: number[] = [];
  for (let run = 0; run < RUNS; run += 1) {
    const start = performance.now();
    planCompaction(transcript, options);
    times.push(performance.now() - start);
  }
  results.push({ tokens: size, entries: transcript.length, ms: median(times) });
}

const mixed = '日本語のテキストを要約します。Some English in between. '.repeat(pick(25_000, 2_500));
for (let warm = 0; warm < 3; warm += 1) estimateTextTokens(mixed);
const estimateStart = performance.now();
const mixedTokens = estimateTextTokens(mixed);
const estimateMs = performance.now() - estimateStart;

const [small] = results;
const large = results[results.length - 1];
if (small === undefined || large === undefined) throw new Error('no sizes');
const growth = large.ms / small.ms;
const sizeGrowth = large.tokens / small.tokens;
await publish({
  order: 6,
  title: '6. Compaction planning',
  method: `\`planCompaction\` (pure: cut points that never split a tool call from its result) on coding-agent-like transcripts (requests, tool calls with results, answers, turn records) of about ${SIZES.map((size) => `${size / 1000}k`).join(', ')} estimated tokens; median of ${RUNS} runs after 3 warm-up runs each.`,
  baseline: `the ${small.tokens / 1000}k-token transcript: linear growth is ${sizeGrowth}× the time for ${sizeGrowth}× the tokens.`,
  tables: [
    {
      table: {
        columns: ['tokens', 'entries', 'ms (median)', 'vs smallest', 'ms per 100k tokens'],
        rows: results.map((result) => [
          String(result.tokens),
          String(result.entries),
          ms(result.ms),
          ratio(result.ms, small.ms),
          ms((result.ms / result.tokens) * 100_000),
        ]),
      },
    },
  ],
  targets: [
    {
      name: `planning at ${large.tokens / 1000}k tokens`,
      goal: '< 50 ms',
      measured: `${ms(large.ms)} ms`,
      met: large.ms < 50,
    },
    {
      name: `growth from ${small.tokens / 1000}k to ${large.tokens / 1000}k tokens`,
      goal: `linear (≤ ${sizeGrowth * 1.5}×, the size ×1.5)`,
      measured: `${growth.toFixed(1)}×`,
      met: growth <= sizeGrowth * 1.5,
    },
  ],
  notes: [
    `Not targeted: the token estimate of ${mixed.length} characters of mixed Japanese and English text took ${ms(estimateMs)} ms (${mixedTokens} tokens).`,
  ],
});
