/**
 * Row 3, @keel/session-fence: reacquire-with-check and orphan scan on 1 KB, 1 MB and 100 MB
 * transcripts, measured side by side (round-robin over the sizes) in one run. Target: 100 MB
 * within 1.5× of 1 KB. Run: `pnpm bench session-fence.bench` (uses the built dist).
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createSessionFence,
  createTranscriptStore,
  findOrphanedToolUses,
} from '@keel/session-fence';
import { pick } from './lib/env';
import { publish } from './lib/result';
import { ms, ratio, spread, summarize } from './lib/stats';

const sizes = pick(
  [
    { label: '1 KB', bytes: 1024 },
    { label: '1 MB', bytes: 1024 * 1024 },
    { label: '100 MB', bytes: 100 * 1024 * 1024 },
  ],
  [
    { label: '1 KB', bytes: 1024 },
    { label: '64 KB', bytes: 64 * 1024 },
    { label: '1 MB', bytes: 1024 * 1024 },
  ],
);
const rounds = pick(300, 20);
const warmup = pick(20, 2);

type Format = 'keel' | 'claude-cli';

/** Keel or claude-cli lines: user prompt, assistant tool_use, tool result, assistant text. */
function exchange(format: Format, index: number): string {
  const id = `toolu_${index.toString(36).padStart(8, '0')}`;
  const t = '2026-01-01T00:00:00.000Z';
  if (format === 'keel') {
    return [
      {
        type: 'message',
        id: `u${index}`,
        timestamp: t,
        role: 'user',
        content: [{ type: 'text', text: `please list the files, round ${index}` }],
      },
      {
        type: 'message',
        id: `a${index}`,
        timestamp: t,
        role: 'assistant',
        content: [{ type: 'tool_use', id, name: 'Bash', input: { command: 'ls -la' } }],
      },
      {
        type: 'message',
        id: `r${index}`,
        timestamp: t,
        role: 'tool',
        content: [{ type: 'tool_result', toolUseId: id, content: 'a.txt\nb.txt\n' }],
      },
      {
        type: 'message',
        id: `b${index}`,
        timestamp: t,
        role: 'assistant',
        content: [{ type: 'text', text: 'There are two files.' }],
      },
    ]
      .map((line) => `${JSON.stringify(line)}\n`)
      .join('');
  }
  const base = { isSidechain: false, sessionId: 'bench', timestamp: t, version: '2.1.332' };
  return [
    {
      ...base,
      type: 'user',
      uuid: `u${index}`,
      message: { role: 'user', content: `please list the files, round ${index}` },
    },
    {
      ...base,
      type: 'assistant',
      uuid: `a${index}`,
      message: {
        id: `msg_${index}`,
        role: 'assistant',
        model: 'claude',
        content: [{ type: 'tool_use', id, name: 'Bash', input: { command: 'ls -la' } }],
      },
    },
    { type: 'progress', data: { type: 'bash_progress' }, uuid: `p${index}` },
    {
      ...base,
      type: 'user',
      uuid: `r${index}`,
      message: {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: id, content: 'a.txt\nb.txt\n' }],
      },
    },
    {
      ...base,
      type: 'assistant',
      uuid: `b${index}`,
      message: {
        id: `msg_${index}b`,
        role: 'assistant',
        model: 'claude',
        content: [{ type: 'text', text: 'There are two files.' }],
      },
    },
  ]
    .map((line) => `${JSON.stringify(line)}\n`)
    .join('');
}

/** Writes about `bytes` of transcript ending in one assistant message with an unanswered tool_use. */
async function generate(path: string, format: Format, bytes: number): Promise<void> {
  const out = createWriteStream(path);
  const write = (text: string) =>
    new Promise<void>((resolve, reject) =>
      out.write(text, (error) => (error ? reject(error) : resolve())),
    );
  let written = 0;
  if (format === 'keel') {
    const header = `${JSON.stringify({ type: 'header', version: 1, sessionId: 'bench', createdAt: new Date().toISOString() })}\n`;
    await write(header);
    written += header.length;
  }
  let batch = '';
  for (let index = 0; written + batch.length < bytes - 600; index += 1) {
    batch += exchange(format, index);
    if (batch.length > 1 << 20) {
      await write(batch);
      written += batch.length;
      batch = '';
    }
  }
  const last = exchange(format, 1e9).split('\n');
  await write(`${batch}${last[0]}\n${last[1]}\n`);
  await new Promise<void>((resolve) => out.end(resolve));
}

async function time(task: () => Promise<unknown>): Promise<number> {
  const started = process.hrtime.bigint();
  await task();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

const dir = await mkdtemp(join(tmpdir(), 'keel-bench-fence-'));
try {
  const store = createTranscriptStore({ sessionsDir: dir, fsync: false });
  const cases = [];
  for (const size of sizes) {
    const sessionId = `bench-${size.bytes}`;
    const keelPath = store.transcriptPath(sessionId);
    const cliPath = join(dir, `cli-${size.bytes}.jsonl`);
    await generate(keelPath, 'keel', size.bytes);
    await generate(cliPath, 'claude-cli', size.bytes);
    const fence = createSessionFence({ storage: store, sessionId });
    await fence.acquire();
    const orphans = await findOrphanedToolUses(keelPath, { format: 'keel' });
    const cliOrphans = await findOrphanedToolUses(cliPath, { format: 'claude-cli' });
    if (orphans.length !== 1 || cliOrphans.length !== 1)
      throw new Error(`expected one orphan in each ${size.label} file`);
    cases.push({
      size,
      actualBytes: (await stat(keelPath)).size,
      fence,
      keelPath,
      cliPath,
      reacquire: [] as number[],
      scanKeel: [] as number[],
      scanCli: [] as number[],
    });
  }
  for (let round = -warmup; round < rounds; round += 1) {
    for (const item of cases) {
      await item.fence.release();
      const reacquire = await time(() => item.fence.reacquire());
      const scanKeel = await time(() => findOrphanedToolUses(item.keelPath, { format: 'keel' }));
      const scanCli = await time(() =>
        findOrphanedToolUses(item.cliPath, { format: 'claude-cli' }),
      );
      if (round < 0) continue;
      item.reacquire.push(reacquire);
      item.scanKeel.push(scanKeel);
      item.scanCli.push(scanCli);
    }
  }
  for (const item of cases) await item.fence.end();

  const small = cases[0];
  const large = cases[cases.length - 1];
  if (small === undefined || large === undefined) throw new Error('no sizes');
  const measures = [
    ['reacquire + check', 'reacquire'],
    ['orphan scan (keel)', 'scanKeel'],
    ['orphan scan (claude-cli)', 'scanCli'],
  ] as const;
  await publish({
    order: 3,
    title: '3. Session fence',
    method: `A fence's reacquire (a new lease and the check that the transcript is exactly as it was left) and the trailing-orphan scan (\`findOrphanedToolUses\`, a Keel and a Claude Code transcript ending in an unanswered \`tool_use\`) on transcripts of ${sizes.map((size) => size.label).join(', ')}; sizes round-robin, ${rounds} rounds after ${warmup} warm-up rounds. The check reads a bounded head and tail of the file (identity, size, digests), the scan a bounded tail: neither grows with the transcript.`,
    baseline: `the same operation on the ${small.size.label} transcript, in the same run.`,
    tables: [
      {
        table: {
          columns: [
            'transcript',
            ...measures.map(([label]) => `${label}: p50 ms (p10–p90)`),
            ...measures.map(([label]) => `${label}: vs ${small.size.label}`),
          ],
          rows: cases.map((item) => [
            `${item.size.label} (${item.actualBytes} bytes)`,
            ...measures.map(([, key]) => {
              const summary = summarize(item[key]);
              return `${ms(summary.p50)} (${spread(summary)})`;
            }),
            ...measures.map(([, key]) =>
              ratio(summarize(item[key]).p50, summarize(small[key]).p50),
            ),
          ]),
        },
      },
    ],
    targets: measures.map(([label, key]) => {
      const value = summarize(large[key]).p50 / summarize(small[key]).p50;
      return {
        name: `${label}, ${large.size.label} vs ${small.size.label}`,
        goal: '≤ 1.5×',
        measured: `${value.toFixed(2)}×`,
        met: value <= 1.5,
        why: 'the larger file is read in its last 16 KiB, and in more when the last exchange is longer; the 1 KB one in one small read',
      };
    }),
    notes: [],
  });
} finally {
  await rm(dir, { recursive: true, force: true });
}
