/**
 * MCP tools the way a user meets them: the built gateway starts the registry's reference MCP
 * servers (server-filesystem on a temp folder, server-everything over stdio and streamable
 * HTTP) from `tools.mcp`, offers their allowed tools to the model as `server__tool`, runs the
 * model's calls through the orchestrator's tool runner, and streams each call's arguments and
 * result. The model is the loopback mock provider, scripted to call the tools.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMockProvider, type MockProvider } from '@keel/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type GatewayProcess,
  removeDir,
  sendMessage,
  startGateway,
} from './support/gateway-process';
import {
  MCP_BIN,
  mcpGatewayConfig,
  recordingProxy,
  startEverythingHttp,
  streamMessage,
  toolNamesOf,
  toolResultsOf,
} from './support/mcp-servers';

let mock: MockProvider;
let data: string;
const gateways: GatewayProcess[] = [];

beforeAll(async () => {
  mock = await createMockProvider({ defaultReply: () => 'Done.' });
  data = await mkdtemp(join(tmpdir(), 'keel-mcp-data-'));
  await mkdir(join(data, 'notes'));
  await writeFile(join(data, 'notes', 'harbour.txt'), 'The harbour opens at six.\n');
  await writeFile(join(data, 'readme.md'), '# Data\n');
});
afterEach(async () => {
  for (const gateway of gateways.splice(0)) {
    await gateway.stop();
    await removeDir(gateway.dir);
  }
  mock.reset();
});
afterAll(async () => {
  await mock.close();
  await rm(data, { recursive: true, force: true });
});

const filesystem = (allow: string[]) => ({
  mcp: { fs: { command: MCP_BIN.filesystem, args: [data], allow } },
});

async function start(tools: unknown, extra: Record<string, unknown> = {}) {
  const gateway = await startGateway({ config: mcpGatewayConfig(mock, tools, extra) });
  gateways.push(gateway);
  return gateway;
}

describe('MCP tools in a turn', { timeout: 180_000 }, () => {
  it('lists a directory and reads a file: arguments and results streamed, results fed back to the model', async () => {
    const gateway = await start(filesystem(['list_directory', 'read_text_file']));
    mock.enqueue(
      {
        type: 'ok',
        toolCalls: [
          { id: 'toolu_list', name: 'fs__list_directory', input: { path: join(data, 'notes') } },
        ],
      },
      {
        type: 'ok',
        toolCalls: [
          {
            id: 'toolu_read',
            name: 'fs__read_text_file',
            input: { path: join(data, 'notes', 'harbour.txt') },
          },
        ],
      },
      { type: 'ok', text: 'The harbour opens at six.' },
    );
    const events = await streamMessage(gateway, 's1', { text: 'When does the harbour open?' });

    const calls = events.filter((event) => event.event === 'tool-call').map((event) => event.data);
    expect(calls).toEqual([
      {
        attempt: 1,
        id: 'toolu_list',
        name: 'fs__list_directory',
        input: { path: join(data, 'notes') },
      },
      {
        attempt: 2,
        id: 'toolu_read',
        name: 'fs__read_text_file',
        input: { path: join(data, 'notes', 'harbour.txt') },
      },
    ]);
    const results = events
      .filter((event) => event.event === 'tool-result')
      .map((event) => event.data);
    expect(results).toMatchObject([
      {
        id: 'toolu_list',
        name: 'fs__list_directory',
        isError: false,
        content: '[FILE] harbour.txt',
      },
      {
        id: 'toolu_read',
        name: 'fs__read_text_file',
        isError: false,
        content: 'The harbour opens at six.\n',
      },
    ]);
    expect(events.at(-1)).toMatchObject({
      event: 'outcome',
      data: { outcome: 'reply', text: 'The harbour opens at six.' },
    });

    // The model was offered the allowed tools only, next to nothing else, with the server's schemas.
    const [first, second, third] = mock.requests.map((request) => request.body);
    expect(toolNamesOf(first)).toEqual(['fs__list_directory', 'fs__read_text_file']);
    expect(
      (first as { tools: Array<{ input_schema: unknown }> }).tools[1]?.input_schema,
    ).toMatchObject({
      type: 'object',
      properties: { path: { type: 'string' } },
    });
    expect(toolResultsOf(second)).toMatchObject([
      { tool_use_id: 'toolu_list', content: '[FILE] harbour.txt' },
    ]);
    expect(toolResultsOf(third).at(-1)).toMatchObject({
      tool_use_id: 'toolu_read',
      content: 'The harbour opens at six.\n',
    });
  });

  it('keeps the built-in tools and the old array form working beside MCP servers', async () => {
    const gateway = await start({ builtin: ['roll_dice'], ...filesystem(['list_directory']) });
    mock.enqueue({ type: 'ok', text: 'Hi.' });
    expect((await sendMessage(gateway, 's1', { text: 'hi' })).body['outcome']).toBe('reply');
    expect(toolNamesOf(mock.requests[0]?.body)).toEqual(['roll_dice', 'fs__list_directory']);

    const old = await start(['current_time']);
    mock.enqueue({ type: 'ok', text: 'Hi.' });
    expect((await sendMessage(old, 's1', { text: 'hi' })).body['outcome']).toBe('reply');
    expect(toolNamesOf(mock.requests[1]?.body)).toEqual(['current_time']);
  });

  it("a tool's own error, and a tool outside the allow-list, come back to the model as errors", async () => {
    const gateway = await start(filesystem(['read_text_file']));
    mock.enqueue(
      {
        type: 'ok',
        toolCalls: [
          {
            id: 'toolu_missing',
            name: 'fs__read_text_file',
            input: { path: join(data, 'nothing.txt') },
          },
          {
            id: 'toolu_write',
            name: 'fs__write_file',
            input: { path: join(data, 'x.txt'), content: 'x' },
          },
        ],
      },
      { type: 'ok', text: 'That file is not there.' },
    );
    const events = await streamMessage(gateway, 's1', { text: 'Read nothing.txt' });
    const results = events
      .filter((event) => event.event === 'tool-result')
      .map((event) => event.data);
    expect(results).toMatchObject([
      {
        id: 'toolu_missing',
        isError: true,
        content: expect.stringMatching(/ENOENT|no such file/i),
      },
      { id: 'toolu_write', isError: true, content: 'There is no tool named "fs__write_file".' },
    ]);
    expect(toolResultsOf(mock.requests[1]?.body)).toMatchObject([
      { tool_use_id: 'toolu_missing', is_error: true },
      { tool_use_id: 'toolu_write', is_error: true },
    ]);
    expect(events.at(-1)).toMatchObject({ data: { outcome: 'reply' } });
  });

  it('a call past turn.toolTimeoutMs becomes an error result and the turn goes on', async () => {
    const gateway = await start(
      {
        mcp: {
          everything: {
            command: MCP_BIN.everything,
            args: ['stdio'],
            allow: ['trigger-long-running-operation'],
          },
        },
      },
      { turn: { toolTimeoutMs: 1_000 } },
    );
    mock.enqueue(
      {
        type: 'ok',
        toolCalls: [
          {
            id: 'toolu_long',
            name: 'everything__trigger-long-running-operation',
            input: { duration: 3_600, steps: 2 },
          },
        ],
      },
      { type: 'ok', text: 'It took too long.' },
    );
    const { body } = await sendMessage(gateway, 's1', { text: 'Run the long one' });
    expect(body['outcome']).toBe('reply');
    expect(toolResultsOf(mock.requests[1]?.body)).toMatchObject([
      {
        tool_use_id: 'toolu_long',
        is_error: true,
        content:
          'The tool "everything__trigger-long-running-operation" did not answer within 1000 ms.',
      },
    ]);
  });

  it('a streamable HTTP server, sent its headers; restarted, it is reconnected to', async () => {
    let http = await startEverythingHttp();
    const proxy = await recordingProxy(http.url);
    try {
      const gateway = await start({
        mcp: { web: { url: proxy.url, headers: { 'x-keel-test': 'yes' }, allow: ['get-sum'] } },
      });
      expect(proxy.headers.length).toBeGreaterThan(0);
      expect(proxy.headers.every((headers) => headers['x-keel-test'] === 'yes')).toBe(true);
      const sum = (id: string, a: number) => ({
        type: 'ok' as const,
        toolCalls: [{ id, name: 'web__get-sum', input: { a, b: 3 } }],
      });
      mock.enqueue(sum('toolu_1', 2), { type: 'ok', text: 'Five.' });
      expect((await sendMessage(gateway, 's1', { text: '2 + 3?' })).body['outcome']).toBe('reply');
      expect(toolResultsOf(mock.requests[1]?.body)).toMatchObject([
        { tool_use_id: 'toolu_1', content: 'The sum of 2 and 3 is 5.' },
      ]);

      // The server restarts and forgets the session: the call gets a new one and is answered.
      await http.stop();
      http = await startEverythingHttp(http.port);
      mock.enqueue(sum('toolu_4', 4), { type: 'ok', text: 'Seven.' });
      await sendMessage(gateway, 's1', { text: '4 + 3?' });
      expect(toolResultsOf(mock.requests.at(-1)?.body).at(-1)).toEqual({
        type: 'tool_result',
        tool_use_id: 'toolu_4',
        content: 'The sum of 4 and 3 is 7.',
      });
      expect(proxy.headers.every((headers) => headers['x-keel-test'] === 'yes')).toBe(true);
    } finally {
      await proxy.close();
      await http.stop();
    }
  });
});

describe('an MCP server that cannot be used stops the gateway at start-up, naming it', {
  timeout: 180_000,
}, () => {
  async function startFails(tools: Record<string, unknown>): Promise<string> {
    const error = await startGateway({ config: mcpGatewayConfig(mock, tools) }).then(
      (gateway) => {
        gateways.push(gateway);
        return new Error('the gateway started');
      },
      (failure: Error) => failure,
    );
    return error.message;
  }

  it('a server whose process exits at once', async () => {
    const said = await startFails({
      mcp: {
        broken: {
          command: process.execPath,
          args: ['-e', 'console.error("no config"); process.exit(3)'],
          allow: ['x'],
        },
      },
    });
    expect(said).toMatch(/gateway exited \(1\)/);
    expect(said).toMatch(/MCP server "broken" could not start: .*no config/);
  });

  it('a command that does not exist', async () => {
    const said = await startFails({
      mcp: { ghost: { command: 'keel-no-such-mcp-server', allow: ['x'] } },
    });
    expect(said).toMatch(/MCP server "ghost" could not start: .*ENOENT/);
  });

  it('an allowed tool the server does not have', async () => {
    const said = await startFails(filesystem(['list_directory', 'delete_everything']));
    expect(said).toMatch(
      /MCP server "fs" has no tool named "delete_everything" \(it has: .*read_text_file/,
    );
  });
});
