import { findOrphanedToolUses } from '@keel/session-fence';
import type { Message } from '@keel/spec';
import { describe, expect, it } from 'vitest';
import {
  abortAtToolCall,
  aliveFakeProcesses,
  assistantTurn,
  createCliTestFixture,
  drain,
  fakeProcessIds,
  fakePrompts,
  fakeSignals,
  userTurn,
} from '../../test/cli-test-fixture';
import { createMemoryBindingStore } from './binding-store';
import type { ReseedLoadContext } from './claude-cli-options';
import { createClaudeCliTransport } from './create-claude-cli-transport';

describe('createClaudeCliTransport: orphaned tool_use', () => {
  it('detects the orphan a killed run left, starts fresh and reseeds summary and recent turns', async () => {
    const fixture = createCliTestFixture({
      turns: [
        {
          sessionId: 'cli-orphaned',
          steps: [
            { type: 'text', text: 'Running it.' },
            {
              type: 'tool_use',
              id: 'toolu_orphan',
              name: 'Bash',
              input: { command: 'sleep' },
              hang: true,
            },
          ],
        },
        { sessionId: 'cli-fresh', steps: [{ type: 'text', text: 'Back on track.' }] },
      ],
    });
    const history: Message[] = [];
    for (let index = 1; index <= 30; index += 1) {
      history.push(
        userTurn(`old question number ${index}`),
        assistantTurn(`old answer number ${index}`),
      );
    }
    const loads: ReseedLoadContext[] = [];
    const transport = createClaudeCliTransport({
      command: fixture.fake.command,
      cwd: fixture.cwd,
      env: fixture.fake.env,
      bindings: createMemoryBindingStore(),
      // A crash, not a polite stop: SIGKILL at once, so the CLI cannot answer its tool_use.
      abortGraceMs: 0,
      reseed: {
        maxChars: 600,
        load: (context) => {
          loads.push(context);
          return { summary: 'SUMMARY: the user plans a trip to Lyon.', messages: history };
        },
      },
    });

    const killed = await abortAtToolCall(
      transport,
      { messages: [userTurn('run the long command')] },
      { sessionId: 'gw-o' },
    );
    expect(killed.events.map((event) => event.type)).toEqual([
      'session-bound',
      'text-delta',
      'tool-call',
    ]);
    expect(killed.error).toMatchObject({ keelKind: 'caller_abort' });
    expect(fakeProcessIds(fixture)).toHaveLength(2); // the fake CLI and the tool process it started
    expect(aliveFakeProcesses(fixture)).toEqual([]);
    // SIGKILL at once: the CLI never saw a SIGTERM.
    expect(fakeSignals(fixture)).toEqual([]);

    const next = await drain(
      transport.stream({ messages: [...history, userTurn('Where was I?')] }, { sessionId: 'gw-o' }),
    );
    expect(next.error).toBeUndefined();
    expect(next.events[0]).toEqual({
      type: 'binding-invalidated',
      sessionId: 'gw-o',
      cliSessionId: 'cli-orphaned',
      reason: 'orphaned-tool-use',
      orphanedToolUseIds: ['toolu_orphan'],
    });
    expect(next.events[1]).toEqual({
      type: 'session-bound',
      sessionId: 'gw-o',
      cliSessionId: 'cli-fresh',
      resumed: false,
    });
    expect(next.events).toContainEqual({ type: 'text-delta', text: 'Back on track.' });
    expect(loads.map((load) => load.reason)).toEqual(['unbound', 'orphaned-tool-use']);

    const argv = fixture.fake.calls()[1] ?? [];
    expect(argv).not.toContain('--resume');
    const prompt = fakePrompts(fixture)[1] ?? '';
    const summaryAt = prompt.indexOf('SUMMARY: the user plans a trip to Lyon.');
    const marker = /\[… (\d+) earlier messages omitted …\]/.exec(prompt);
    expect(summaryAt).toBeGreaterThan(-1);
    expect(marker).not.toBeNull();
    expect(summaryAt).toBeLessThan(marker?.index ?? -1);
    const newest = '{"role":"assistant","text":"old answer number 30"}';
    expect(prompt).toContain(newest);
    expect(prompt).not.toContain('"old question number 1"');
    const kept = (prompt.match(/old (question|answer) number/g) ?? []).length;
    expect(Number(marker?.[1]) + kept).toBe(history.length);
    expect(prompt.indexOf(newest)).toBeLessThan(prompt.indexOf('Where was I?'));
    // The reseeded context stays within maxChars (600), its tags and the blank line apart.
    const context = prompt.slice(
      prompt.indexOf('<conversation-summary>'),
      prompt.indexOf('</earlier-messages>') + '</earlier-messages>'.length,
    );
    const tags = ['<conversation-summary>\n', '\n</conversation-summary>', '\n\n'];
    tags.push('<earlier-messages>\n', '\n</earlier-messages>');
    expect(context.length).toBeLessThanOrEqual(600 + tags.join('').length);
  });

  it('with orphanPolicy resume, resumes the session the killed run left, orphan and all', async () => {
    const fixture = createCliTestFixture({
      turns: [
        {
          sessionId: 'cli-kept',
          steps: [
            {
              type: 'tool_use',
              id: 'toolu_cut',
              name: 'Bash',
              input: { command: 'sleep' },
              hang: true,
            },
          ],
        },
        { steps: [{ type: 'text', text: 'Resumed where we were.' }] },
      ],
    });
    const loads: ReseedLoadContext[] = [];
    const transport = createClaudeCliTransport({
      command: fixture.fake.command,
      cwd: fixture.cwd,
      env: fixture.fake.env,
      abortGraceMs: 0,
      orphanPolicy: 'resume',
      reseed: {
        load: (context) => {
          loads.push(context);
          return { messages: [] };
        },
      },
    });
    const killed = await abortAtToolCall(
      transport,
      { messages: [userTurn('run the long command')] },
      { sessionId: 'gw-r' },
    );
    expect(killed.error).toMatchObject({ keelKind: 'caller_abort' });
    const transcript = fixture.fake.transcriptPath(fixture.cwd, 'cli-kept');
    expect(await findOrphanedToolUses(transcript, { format: 'claude-cli' })).toEqual(['toolu_cut']);

    const next = await drain(
      transport.stream(
        { messages: [userTurn('run the long command'), userTurn('Never mind.')] },
        { sessionId: 'gw-r' },
      ),
    );
    expect(next.error).toBeUndefined();
    expect(next.events.some((event) => event.type === 'binding-invalidated')).toBe(false);
    expect(next.events[0]).toEqual({
      type: 'session-bound',
      sessionId: 'gw-r',
      cliSessionId: 'cli-kept',
      resumed: true,
    });
    const argv = fixture.fake.calls()[1] ?? [];
    expect(argv[argv.indexOf('--resume') + 1]).toBe('cli-kept');
    // Resumed: the CLI has the conversation, nothing is reseeded.
    expect(fakePrompts(fixture)[1]).toBe('run the long command\n\nNever mind.');
    expect(loads.map((load) => load.reason)).toEqual(['unbound']);
  });
});
