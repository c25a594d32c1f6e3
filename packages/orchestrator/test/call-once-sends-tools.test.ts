// call-once.ts builds the request for a port that does not run its own tools (every SDK
// transport) with the turn's tool definitions in it, so the model can call them.
import type { ToolRunner } from '@keel/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('tool definitions in the request', () => {
  it('a port that does not run its own tools is sent the turn’s tools', async () => {
    const tools: ToolRunner = {
      definitions: [{ name: 'lookup', description: 'Looks up', inputSchema: { type: 'object' } }],
      run: async () => ({ content: 'found' }),
    };
    harness = await createHarness({ tools });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(outcome.kind).toBe('reply');
    const [request] = harness.mock.requests;
    expect(request).toBeDefined();
    const body = request?.body as { tools?: Array<{ name: string }> } | undefined;
    expect(body?.tools?.map((tool) => tool.name)).toEqual(['lookup']);
  });
});
