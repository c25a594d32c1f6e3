import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixturePath, useTempDir } from '../test/support';
import { findOrphanedToolUses, inspectTrailingToolUses } from './find-orphaned-tool-uses';
import { getTranscriptFileStatus } from './get-transcript-file-status';

describe('findOrphanedToolUses on the real Claude Code fixtures', () => {
  it.each([
    'spotter__tool_heavy.jsonl',
    'spotter__short.jsonl',
    'spotter__subagent.jsonl',
    'spotter__258c7280__subagents__agent-a881341.jsonl',
    'ccviewer__5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl',
  ])('finds no orphan in verbatim %s', async (name) => {
    expect(await findOrphanedToolUses(fixturePath(name), { format: 'claude-cli' })).toEqual([]);
  });

  it('finds both parallel calls of the cut-off message in tool_heavy__cut_after_line30', async () => {
    const orphans = await findOrphanedToolUses(
      fixturePath('derived/tool_heavy__cut_after_line30.jsonl'),
      {
        format: 'claude-cli',
      },
    );
    expect(orphans.sort()).toEqual([
      'toolu_01DKTWcKpZ2ksZQmoKKfxiw6',
      'toolu_01JJds55jYrYwd9TktNGndRY',
    ]);
  });

  it('skips the torn last line of tool_heavy__truncated_last_line and finds the one orphan', async () => {
    const orphans = await findOrphanedToolUses(
      fixturePath('derived/tool_heavy__truncated_last_line.jsonl'),
      {
        format: 'claude-cli',
      },
    );
    expect(orphans).toEqual(['toolu_01DKTWcKpZ2ksZQmoKKfxiw6']);
  });
});

const temp = useTempDir();

let uuidCounter = 0;
function cli(type: string, message: unknown, extra: Record<string, unknown> = {}): string {
  uuidCounter += 1;
  return JSON.stringify({ type, isSidechain: false, uuid: `u${uuidCounter}`, message, ...extra });
}
const toolUse = (id: string, name = 'Bash') => ({ type: 'tool_use', id, name, input: {} });
const toolResult = (id: string) => ({ type: 'tool_result', tool_use_id: id, content: 'ok' });
const assistant = (messageId: string, ...content: unknown[]) =>
  cli('assistant', { id: messageId, role: 'assistant', model: 'claude-x', content });
const user = (...content: unknown[]) => cli('user', { role: 'user', content });

async function scan(lines: string[], trailingNewline = true): Promise<string[]> {
  const path = join(temp.path, 'session.jsonl');
  await writeFile(path, lines.join('\n') + (trailingNewline ? '\n' : ''));
  return findOrphanedToolUses(path, { format: 'claude-cli' });
}

describe('findOrphanedToolUses on hand-built claude-cli transcripts', () => {
  it('gathers one message split over several lines sharing message.id', async () => {
    const orphans = await scan([
      user('do it'),
      assistant('msg_1', { type: 'text', text: '\n\n' }),
      assistant('msg_1', toolUse('t1')),
      cli('progress', undefined, { data: { type: 'bash_progress' } }),
      assistant('msg_1', toolUse('t2')),
      user(toolResult('t2')),
    ]);
    expect(orphans).toEqual(['t1']);
  });

  it('finds an orphan in an earlier line of a message that continued after other results', async () => {
    expect(
      await scan([
        assistant('msg_0', { type: 'text', text: 'before' }),
        user(toolResult('unrelated')),
        assistant('msg_1', toolUse('x')),
        assistant('msg_1', toolUse('y')),
        user(toolResult('y')),
        assistant('msg_1', toolUse('z')),
        user(toolResult('z')),
      ]),
    ).toEqual(['x']);
  });

  it('accepts answers in any order', async () => {
    expect(
      await scan([
        assistant('msg_1', toolUse('a')),
        assistant('msg_1', toolUse('b')),
        assistant('msg_1', toolUse('c')),
        user(toolResult('c')),
        user(toolResult('a')),
        user(toolResult('b')),
      ]),
    ).toEqual([]);
  });

  it('ignores an unanswered tool_use deep in history', async () => {
    expect(
      await scan([
        assistant('msg_1', toolUse('old')),
        user({ type: 'text', text: '[Request interrupted by user]' }),
        assistant('msg_2', { type: 'text', text: 'fine' }),
      ]),
    ).toEqual([]);
  });

  it('keeps sidechain calls and answers apart from the main chain', async () => {
    expect(
      await scan([
        assistant('msg_1', toolUse('task', 'Task')),
        cli('user', { role: 'user', content: 'sub prompt' }, { isSidechain: true }),
        cli(
          'assistant',
          { id: 'msg_s', role: 'assistant', content: [toolUse('sub')] },
          { isSidechain: true },
        ),
      ]),
    ).toEqual(['task']);
    expect(
      await scan([
        assistant('msg_1', toolUse('task', 'Task')),
        cli('user', { role: 'user', content: [toolResult('task')] }, { isSidechain: true }),
      ]),
    ).toEqual(['task']);
  });

  it('skips meta lines, api-request-blob messages, synthetic errors and nested progress messages', async () => {
    expect(
      await scan([
        assistant('msg_1', toolUse('t1')),
        JSON.stringify({ type: 'queue-operation', operation: 'enqueue', content: 'x' }),
        JSON.stringify({ type: 'file-history-snapshot', messageId: 'm', snapshot: {} }),
        JSON.stringify({ type: 'attachment', attachment: { type: 'date' } }),
        JSON.stringify({ type: 'last-prompt', lastPrompt: 'x' }),
        JSON.stringify({
          type: 'api-request-blob',
          message: { role: 'user', content: [toolResult('t1')] },
        }),
        cli('progress', undefined, {
          data: {
            message: { type: 'user', message: { role: 'user', content: [toolResult('t1')] } },
          },
        }),
        cli('assistant', {
          id: 'syn',
          model: '<synthetic>',
          role: 'assistant',
          content: [{ type: 'text', text: 'API Error: 529' }],
        }),
      ]),
    ).toEqual(['t1']);
  });

  it('handles [text, tool_use] in one line and server/mcp tool calls with *_tool_result answers', async () => {
    expect(
      await scan([
        assistant(
          'msg_1',
          { type: 'text', text: 'let me look' },
          toolUse('t1'),
          { type: 'server_tool_use', id: 's1', name: 'web_search', input: {} },
          { type: 'web_search_tool_result', tool_use_id: 's1', content: [] },
          { type: 'mcp_tool_use', id: 'm1', name: 'x', server_name: 'y', input: {} },
        ),
      ]),
    ).toEqual(['t1', 'm1']);
  });

  it('counts a result only if it comes after its call', async () => {
    expect(await scan([user(toolResult('t1')), assistant('msg_1', toolUse('t1'))])).toEqual(['t1']);
  });

  it('skips a torn last line and a corrupt middle line', async () => {
    expect(
      await scan(
        [
          assistant('msg_1', toolUse('t1')),
          '{"type":"user", oops',
          user(toolResult('t1')).slice(0, 40),
        ],
        false,
      ),
    ).toEqual(['t1']);
  });

  it('decides conversation by the line type, not message.role', async () => {
    expect(
      await scan([
        assistant('msg_1', toolUse('t1')),
        JSON.stringify({
          type: 'api-request-blob',
          message: { role: 'assistant', id: 'x', content: [toolUse('t9')] },
        }),
      ]),
    ).toEqual(['t1']);
  });
});

describe('bounded tail', () => {
  it('looks only at the last tailBytes bytes', async () => {
    const filler = Array.from({ length: 100 }, (_, index) =>
      JSON.stringify({
        type: 'queue-operation',
        operation: 'enqueue',
        content: `${index}`.padEnd(100, '.'),
      }),
    );
    const path = join(temp.path, 'long.jsonl');
    await writeFile(path, [assistant('msg_1', toolUse('t1')), ...filler].join('\n') + '\n');
    expect(await findOrphanedToolUses(path, { format: 'claude-cli' })).toEqual(['t1']);
    expect(await findOrphanedToolUses(path, { format: 'claude-cli', tailBytes: 4096 })).toEqual([]);
  });
});

describe('a last exchange longer than tailBytes', () => {
  const big = 'z'.repeat(8000);

  it('keel: says the window was incomplete when the calling message lies before it', async () => {
    const path = join(temp.path, 'keel.jsonl');
    const lines = [
      {
        type: 'message',
        id: '1',
        timestamp: 't',
        role: 'assistant',
        content: [toolUse('a'), toolUse('b')],
      },
      {
        type: 'message',
        id: '2',
        timestamp: 't',
        role: 'tool',
        content: [{ type: 'tool_result', toolUseId: 'b', content: big }],
      },
    ];
    await writeFile(path, lines.map((line) => JSON.stringify(line)).join('\n') + '\n');
    expect(await inspectTrailingToolUses(path, { format: 'keel', tailBytes: 4096 })).toEqual({
      orphans: [],
      complete: false,
    });
    expect(await inspectTrailingToolUses(path, { format: 'keel', tailBytes: 9000 })).toEqual({
      orphans: ['a'],
      complete: true,
    });
  });

  it('claude-cli: reports the calls it saw, and that earlier lines of the message may hold more', async () => {
    const lines = [
      user('go'),
      assistant('msg_1', toolUse('early')),
      user({ type: 'tool_result', tool_use_id: 'other', content: big }),
      assistant('msg_1', toolUse('late')),
    ];
    const path = join(temp.path, 'cli.jsonl');
    await writeFile(path, `${lines.join('\n')}\n`);
    expect(await inspectTrailingToolUses(path, { format: 'claude-cli', tailBytes: 4096 })).toEqual({
      orphans: ['late'],
      complete: false,
    });
    expect(await inspectTrailingToolUses(path, { format: 'claude-cli' })).toEqual({
      orphans: ['early', 'late'],
      complete: true,
    });
  });

  it('is complete once it meets an earlier assistant message inside the window', async () => {
    const filler = assistant('msg_0', { type: 'text', text: big });
    const path = join(temp.path, 'done.jsonl');
    await writeFile(
      path,
      `${[filler, assistant('msg_1', { type: 'text', text: 'x' }), assistant('msg_2', toolUse('t'))].join('\n')}\n`,
    );
    expect(await inspectTrailingToolUses(path, { format: 'claude-cli', tailBytes: 1024 })).toEqual({
      orphans: ['t'],
      complete: true,
    });
  });
});

describe('findOrphanedToolUses on keel transcripts', () => {
  it('reads keel entries', async () => {
    const path = join(temp.path, 's.jsonl');
    const lines = [
      { type: 'header', version: 1, sessionId: 's', createdAt: 'now' },
      { type: 'message', id: '1', timestamp: 't', role: 'assistant', content: [toolUse('k1')] },
      {
        type: 'message',
        id: '2',
        timestamp: 't',
        role: 'tool',
        content: [{ type: 'tool_result', toolUseId: 'k1', content: 'x' }],
      },
      {
        type: 'message',
        id: '3',
        timestamp: 't',
        role: 'assistant',
        content: [toolUse('k2'), toolUse('k3')],
      },
      {
        type: 'message',
        id: '4',
        timestamp: 't',
        role: 'tool',
        content: [{ type: 'tool_result', toolUseId: 'k3', content: 'x' }],
      },
    ];
    await writeFile(path, lines.map((line) => JSON.stringify(line)).join('\n') + '\n');
    expect(await findOrphanedToolUses(path, { format: 'keel' })).toEqual(['k2']);
  });
});

describe('missing, empty and unsafe files', () => {
  it('gives [] and tells them apart with getTranscriptFileStatus', async () => {
    const real = join(temp.path, 'real.jsonl');
    await writeFile(real, `${assistant('msg_1', toolUse('t1'))}\n`);
    const empty = join(temp.path, 'empty.jsonl');
    await writeFile(empty, '');
    const link = join(temp.path, 'link.jsonl');
    await symlink(real, link);
    const directory = join(temp.path, 'dir.jsonl');
    await mkdir(directory);
    const missing = join(temp.path, 'missing.jsonl');

    expect(await findOrphanedToolUses(real, { format: 'claude-cli' })).toEqual(['t1']);
    for (const path of [empty, link, directory, missing]) {
      expect(await findOrphanedToolUses(path, { format: 'claude-cli' })).toEqual([]);
    }
    expect(await getTranscriptFileStatus(real)).toBe('present');
    expect(await getTranscriptFileStatus(empty)).toBe('empty');
    expect(await getTranscriptFileStatus(link)).toBe('symlink');
    expect(await getTranscriptFileStatus(directory)).toBe('not-regular');
    expect(await getTranscriptFileStatus(missing)).toBe('missing');
  });
});
