// What the claude-cli transport refuses (a client's tools, a forced tool, JSON) and what it
// ignores (sampling), through the transport and the fake CLI: a refused call never starts the CLI.
import type { ModelRequest } from '@keel/spec';
import { describe, expect, it } from 'vitest';
import { createCliTestFixture, drain, fakePrompts, userTurn } from '../../test/cli-test-fixture';
import { createClaudeCliTransport } from './create-claude-cli-transport';

function setup() {
  const fixture = createCliTestFixture({ turns: [{ steps: [{ type: 'text', text: 'plain' }] }] });
  const transport = createClaudeCliTransport({
    command: fixture.fake.command,
    cwd: fixture.cwd,
    env: fixture.fake.env,
  });
  return { fixture, transport };
}

const question: ModelRequest = { messages: [userTurn('What is in this directory?')] };
const weather = { name: 'weather', inputSchema: { type: 'object' } };

describe('claude-cli: request fields', () => {
  it.each<[string, Partial<ModelRequest>, string]>([
    ['tools', { tools: [weather] }, '`tools`'],
    ['toolChoice required', { toolChoice: 'required' }, '`toolChoice: required`'],
    ['a named toolChoice', { toolChoice: { type: 'tool', name: 'weather' } }, 'tool weather'],
    ['responseFormat json_object', { responseFormat: { type: 'json_object' } }, 'json_object'],
    [
      'responseFormat json_schema',
      { responseFormat: { type: 'json_schema', name: 'answer', schema: {} } },
      'json_schema',
    ],
  ])('refuses %s before the CLI starts, naming it', async (_title, fields, named) => {
    const { fixture, transport } = setup();
    const { events, error } = await drain(transport.stream({ ...question, ...fields }));
    expect(events).toEqual([]);
    expect(error).toMatchObject({ name: 'UnsupportedRequestError', keelKind: 'invalid_request' });
    expect((error as Error).message).toContain(named);
    expect(fixture.fake.log()).toEqual([]);
  });

  it('answers with toolChoice auto or none, a text format and sampling fields, passing none of them', async () => {
    const { fixture, transport } = setup();
    const { events, error } = await drain(
      transport.stream({
        ...question,
        tools: [],
        toolChoice: 'none',
        responseFormat: { type: 'text' },
        temperature: 0.2,
        topP: 0.9,
        stop: ['END'],
        maxTokens: 64,
      }),
    );
    expect(error).toBeUndefined();
    expect(events).toContainEqual({ type: 'text-delta', text: 'plain' });
    expect(fakePrompts(fixture)).toEqual(['What is in this directory?']);
    const argv = fixture.fake.calls()[0] ?? [];
    expect(argv.join(' ')).not.toMatch(/temperature|top.p|stop|max.tokens|0\.9|END/i);
  });
});
