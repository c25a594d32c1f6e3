/**
 * Planning time of `planCompaction` for transcripts of about 10k, 100k and 1M estimated tokens.
 * Target: linear in size, under 50 ms at 1M tokens (the exit code is 1 when over). Also shown, not
 * targeted: the token estimate of 1M characters of mixed Japanese and English text (the per-
 * character path; all-Latin text is measured by its length).
 * Run: `pnpm exec tsx src/compaction-plan.bench.ts`.
 */
import type { MessageEntry, TranscriptEntry } from '@keel/compaction';
import { estimateMessageTokens, estimateTextTokens, planCompaction } from '@keel/compaction';

const SIZES = [10_000, 100_000, 1_000_000];
const RUNS = 15;

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
  let chunks = 0;
  for (let run = 0; run < RUNS; run += 1) {
    const start = performance.now();
    const plan = planCompaction(transcript, options);
    times.push(performance.now() - start);
    chunks = plan.chunks.length;
  }
  const ms = median(times);
  results.push({ tokens: size, entries: transcript.length, ms });
  console.log(
    `${String(size).padStart(9)} tokens  ${String(transcript.length).padStart(7)} entries  ${ms.toFixed(2).padStart(8)} ms (median of ${RUNS})  ${chunks} chunks`,
  );
}

const [small, medium, large] = results;
if (small && medium && large) {
  console.log(`ratio 100k/10k: ${(medium.ms / small.ms).toFixed(1)}x (size 10x)`);
  console.log(`ratio 1M/100k:  ${(large.ms / medium.ms).toFixed(1)}x (size 10x)`);
  console.log(
    `1M tokens: ${large.ms.toFixed(2)} ms (target < 50 ms): ${large.ms < 50 ? 'ok' : 'OVER TARGET'}`,
  );
  if (large.ms >= 50) process.exitCode = 1;
}
const mixed = '日本語のテキストを要約します。Some English in between. '.repeat(25_000);
for (let warm = 0; warm < 3; warm += 1) estimateTextTokens(mixed);
const estimateStart = performance.now();
const mixedTokens = estimateTextTokens(mixed);
console.log(
  `${mixed.length} characters of Japanese and English: ${mixedTokens} tokens estimated in ${(performance.now() - estimateStart).toFixed(2)} ms`,
);
