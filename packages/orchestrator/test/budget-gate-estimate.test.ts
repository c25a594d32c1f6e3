// The tokens a request reserves in its budget before it leaves (budget-gate.ts), exactly: about
// one token per 4 characters of what is sent — the orchestrator's system prompt, the request's
// own system prompt (a stateless call) or the latest summary (a turn), each message's content as
// JSON, the tools as JSON — rounded up, plus the output the request may produce: the request's
// `maxTokens`, else the model's `maxOutputTokens`, else the orchestrator's `maxTokens`, else none.
import type { TranscriptEntry } from '@keel/spec';
import { afterEach, describe, expect, it } from 'vitest';
import type { OrchestratorOptions } from '../src/index';
import { createHarness, type Harness } from './harness';
import { recordingBudgets } from './recording-budgets';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const lookup = { name: 'lookup', inputSchema: { type: 'object' } };
const oneProfile = [{ id: 'anthropic', profiles: [{ id: 'k1' }] }];
const chars = (value: unknown) => JSON.stringify(value).length;

async function harnessWith(reserved: number[], overrides: Partial<OrchestratorOptions>) {
  return createHarness({
    providers: oneProfile,
    models: { primary: 'anthropic/primary' },
    script: [{ behavior: { type: 'ok', text: 'hi' } }],
    overrides: { budgets: recordingBudgets(reserved), ...overrides },
  });
}

describe('the tokens a request reserves', () => {
  it('a turn: system prompt and messages as sent, rounded up, plus maxTokens', async () => {
    const reserved: number[] = [];
    harness = await harnessWith(reserved, { system: 'Be brief.', maxTokens: 500 });
    const h = harness;
    await h.orchestrator.runTurn({ sessionId: 's1', input: 'x'.repeat(400) });
    const message = chars([{ type: 'text', text: 'x'.repeat(400) }]);
    expect(reserved).toEqual([Math.ceil(('Be brief.'.length + message) / 4) + 500]);
  });

  it('a turn with tools counts their definitions; the model’s maxOutputTokens wins', async () => {
    const reserved: number[] = [];
    harness = await createHarness({
      providers: oneProfile,
      models: {
        primary: 'anthropic/primary',
        settings: { 'anthropic/primary': { maxOutputTokens: 300 } },
      },
      tools: { definitions: [lookup], run: async () => ({ content: 'found' }) },
      script: [{ behavior: { type: 'ok', text: 'hi' } }],
      overrides: { budgets: recordingBudgets(reserved), maxTokens: 500 },
    });
    await harness.orchestrator.runTurn({ sessionId: 's1', input: 'y'.repeat(41) });
    const message = chars([{ type: 'text', text: 'y'.repeat(41) }]);
    expect(reserved).toEqual([Math.ceil((message + chars([lookup])) / 4) + 300]);
  });

  it('a turn after a compaction counts the summary, not what it replaced; no maxTokens adds none', async () => {
    const reserved: number[] = [];
    harness = await harnessWith(reserved, {});
    const stamp = new Date(0).toISOString();
    const summary = 's'.repeat(40);
    const earlier: TranscriptEntry[] = [
      {
        type: 'message',
        id: 'm0',
        messageId: 'm0',
        timestamp: stamp,
        role: 'user',
        content: [{ type: 'text', text: 'z'.repeat(1_000) }],
      },
      {
        type: 'compaction',
        id: 'c1',
        timestamp: stamp,
        summary,
        firstKeptEntryId: null,
        provenance: {
          producerId: 'test',
          attempts: 1,
          tokensBefore: 300,
          tokensAfter: 10,
          sourceDigest: 'sha256:00',
        },
      },
    ];
    await harness.storage.append('s1', earlier);
    await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    const message = chars([{ type: 'text', text: 'hello' }]);
    expect(reserved).toEqual([Math.ceil((summary.length + message) / 4)]);
  });

  it('a stateless call: both system prompts, its messages and tools, its own maxTokens', async () => {
    const reserved: number[] = [];
    harness = await harnessWith(reserved, { system: 'Be brief.', maxTokens: 500 });
    const messages = [{ role: 'user' as const, content: 'What is 2 + 2?' }];
    await harness.orchestrator.runCall({
      request: { system: 'Answer in digits.', messages, tools: [lookup], maxTokens: 50 },
    });
    const size =
      'Be brief.'.length + 'Answer in digits.'.length + chars('What is 2 + 2?') + chars([lookup]);
    expect(reserved).toEqual([Math.ceil(size / 4) + 50]);
  });

  it('a stateless call without maxTokens or tools: the orchestrator’s maxTokens', async () => {
    const reserved: number[] = [];
    harness = await harnessWith(reserved, { maxTokens: 500 });
    const messages = [{ role: 'user' as const, content: 'What is 2 + 2?' }];
    await harness.orchestrator.runCall({ request: { messages } });
    expect(reserved).toEqual([Math.ceil(chars('What is 2 + 2?') / 4) + 500]);
  });
});
