// The request build-model-request.ts hands to `beforeModelCall` carries only the members it has a
// value for (no `system: ''`, no `maxTokens: undefined`, no empty `tools`), joins the configured
// system prompt and the compaction summary with a blank line (an empty system prompt adds none),
// and a stateless call keeps its own `maxTokens` over the orchestrator's, taking the orchestrator's
// only when it has none.
import type { ModelRequest, ToolRunner, TurnHooks } from '@keel/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { DIRECT_SUMMARY } from './compaction-summary';
import { createHarness, type Harness, type HarnessOptions } from './harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** A harness whose hook records every request as built, before anything else may change it. */
async function recording(options: HarnessOptions): Promise<ModelRequest[]> {
  const built: ModelRequest[] = [];
  const hooks: TurnHooks = {
    beforeModelCall({ request }) {
      built.push(request);
      return undefined;
    },
  };
  harness = await createHarness({ ...options, hooks });
  return built;
}

const SUMMARY_PART = `Summary of the earlier conversation:\n\n${DIRECT_SUMMARY.summary}`;

describe('a turn’s request', () => {
  it('without a system prompt, maxTokens or tools: none of those members, not even undefined', async () => {
    const built = await recording({});
    const outcome = await harness?.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(outcome?.kind).toBe('reply');
    expect(built).toHaveLength(1);
    expect(Object.keys(built[0] ?? {}).sort()).toEqual(['messages', 'model']);
  });

  it('a tool runner with no definitions offers no tools (no empty list)', async () => {
    const tools: ToolRunner = { definitions: [], run: async () => ({ content: 'never' }) };
    const built = await recording({ tools });
    await harness?.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(built).toHaveLength(1);
    expect(built[0]).not.toHaveProperty('tools');
  });

  it('an empty system prompt and a summary: the summary alone, no leading blank line', async () => {
    const built = await recording({ overrides: { system: '' } });
    await harness?.storage.append('s1', [DIRECT_SUMMARY]);
    await harness?.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(built.map((request) => request.system)).toEqual([SUMMARY_PART]);
  });

  it('a system prompt and a summary: joined by a blank line', async () => {
    const built = await recording({ overrides: { system: 'Be brief.' } });
    await harness?.storage.append('s1', [DIRECT_SUMMARY]);
    await harness?.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(built.map((request) => request.system)).toEqual([`Be brief.\n\n${SUMMARY_PART}`]);
  });
});

describe('a stateless call’s maxTokens', () => {
  const messages = [{ role: 'user' as const, content: 'What is 2 + 2?' }];

  it('its own wins over the orchestrator’s', async () => {
    const built = await recording({ overrides: { maxTokens: 500 } });
    await harness?.orchestrator.runCall({ request: { messages, maxTokens: 50 } });
    expect(built.map((request) => request.maxTokens)).toEqual([50]);
  });

  it('without one, the orchestrator’s', async () => {
    const built = await recording({ overrides: { maxTokens: 500 } });
    await harness?.orchestrator.runCall({ request: { messages } });
    expect(built.map((request) => request.maxTokens)).toEqual([500]);
  });
});
