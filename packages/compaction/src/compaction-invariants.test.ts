import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CompactionProvider } from '@keel/spec';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFileTranscriptStore, writeTranscriptFile } from '../test/file-transcript-store';
import { messagesOf, toolPairs, transcriptArbitrary } from '../test/transcript-arbitrary';
import { createCompactor } from './create-compactor';
import { extractIdentifiers } from './extract-identifiers';
import { findLatestUserRequest } from './find-cut-point';
import { selectContext } from './select-context';
import { computeSourceDigest } from './source-digest';
import { SUMMARY_SECTIONS } from './summary-sections';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'keel-compaction-prop-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Echoes the required identifiers under every section: always valid. */
const echoProvider: CompactionProvider = {
  specificationVersion: 'v1',
  id: 'echo',
  async summarize(request) {
    return {
      summary: SUMMARY_SECTIONS.map(
        (s) => `## ${s}\n${request.requiredIdentifiers.join('\n')}`,
      ).join('\n'),
    };
  },
};

describe('a committed compaction, over generated transcripts and real files', () => {
  it('keeps the latest request and every tool pair whole, and appends exactly one line', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        transcriptArbitrary(10),
        fc.integer({ min: 0, max: 200 }),
        async (entries, keepRecentTokens) => {
          run += 1;
          const path = join(dir, `run-${run}.jsonl`);
          await writeTranscriptFile(path, entries);
          const before = await readFile(path);
          const store = createFileTranscriptStore(path);
          const compactor = createCompactor({
            contextWindowTokens: 100_000,
            reserveTokens: 0,
            keepRecentTokens,
            summaryMaxTokens: 100_000,
            providers: [echoProvider],
          });
          const plan = compactor.plan(entries);
          const result = await compactor.compact({
            sessionId: 's',
            store,
            trigger: 'manual',
            signal: new AbortController().signal,
          });
          const after = await readFile(path);
          if (result.status !== 'compacted') {
            expect(after.equals(before)).toBe(true);
            return;
          }
          expect(after.subarray(0, before.length).equals(before)).toBe(true);
          expect(
            after.subarray(before.length).toString('utf8').split('\n').filter(Boolean),
          ).toHaveLength(1);
          const { entries: reread } = await store.read('s');
          const context = selectContext(reread);
          const all = messagesOf(entries);
          const latest = all[findLatestUserRequest(all)];
          if (latest !== undefined) expect(context.messages).toContainEqual(latest);
          // every tool_use / tool_result pair is wholly compacted or wholly kept
          const compacted = plan.compacted;
          for (const [use, answer] of toolPairs(all)) {
            expect(use < compacted.length).toBe(answer < compacted.length);
          }
          expect(result.entry.provenance.sourceDigest).toBe(computeSourceDigest(compacted));
          expect([...compacted, ...context.messages]).toEqual(all);
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('extractIdentifiers', () => {
  const segment = fc.stringMatching(/^[a-z][a-z0-9_-]{0,8}$/);
  const path = fc
    .tuple(
      fc.array(segment, { minLength: 1, maxLength: 4 }),
      segment,
      fc.constantFrom('ts', 'md', 'json', 'py'),
    )
    .map(([dirs, name, ext]) => `/${dirs.join('/')}/${name}.${ext}`);
  const url = fc
    .tuple(fc.constantFrom('http', 'https'), segment, fc.array(segment, { maxLength: 3 }))
    .map(([scheme, host, parts]) => `${scheme}://${host}.example.com/${parts.join('/')}`);
  const words = fc.array(fc.constantFrom('the', 'fix', 'and', 'then', 'see', 'in', 'file'), {
    maxLength: 5,
  });

  it('finds every generated path and URL verbatim in running prose', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(words, fc.oneof(path, url), fc.constantFrom('', '.', ',', ';')), {
          minLength: 1,
          maxLength: 6,
        }),
        (parts) => {
          const text = parts
            .map(([before, id, punctuation]) => `${before.join(' ')} ${id}${punctuation}`)
            .join(' ');
          const found = extractIdentifiers(text);
          for (const [, id] of parts) expect(found).toContain(id);
        },
      ),
      { numRuns: 300 },
    );
  });
});
