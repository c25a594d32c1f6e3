/**
 * MCP servers over a gateway's life: one killed (`kill -9`) between calls is restarted by the
 * next call; a tool that ran is never run again — not by a retry of the next model call, not by
 * a client's retry after the gateway itself was killed mid-turn; and a shutdown leaves no
 * process behind, not even what a launcher (`npx`-style) started.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createMockProvider, type MockProvider, mockFaults } from '@keel/testing';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type GatewayProcess,
  removeDir,
  sendMessage,
  startGateway,
} from './support/gateway-process';
import {
  isAlive,
  MCP_BIN,
  mcpGatewayConfig,
  serverPid,
  streamMessage,
  toolResultsOf,
} from './support/mcp-servers';
import { waitUntil } from './support/wait-until';

let mock: MockProvider;
let data: string;
const gateways: GatewayProcess[] = [];
const LAUNCHER = fileURLToPath(new URL('./fixtures/mcp-launcher.mjs', import.meta.url));

beforeAll(async () => {
  mock = await createMockProvider({ defaultReply: () => 'Done.' });
});
beforeEach(async () => {
  data = await mkdtemp(join(tmpdir(), 'keel-mcp-life-'));
});
afterEach(async () => {
  for (const gateway of gateways.splice(0)) {
    await gateway.stop();
    await removeDir(gateway.dir);
  }
  mock.reset();
  await rm(data, { recursive: true, force: true });
});
afterAll(async () => {
  await mock.close();
});

const filesystem = (allow: string[]) => ({
  mcp: { fs: { command: MCP_BIN.filesystem, args: [data], allow } },
});

async function start(tools: Record<string, unknown>, dir?: string) {
  const gateway = await startGateway({
    config: mcpGatewayConfig(mock, tools),
    ...(dir === undefined ? {} : { dir }),
  });
  gateways.push(gateway);
  return gateway;
}

describe('a server that dies', { timeout: 180_000 }, () => {
  it('killed between calls, it is restarted by the next call, which answers', async () => {
    const gateway = await start(filesystem(['list_directory']));
    await writeFile(join(data, 'a.txt'), 'a');
    const list = (id: string) => ({
      type: 'ok' as const,
      toolCalls: [{ id, name: 'fs__list_directory', input: { path: data } }],
    });
    mock.enqueue(list('toolu_1'), { type: 'ok', text: 'One file.' });
    await sendMessage(gateway, 's1', { text: 'list' });
    const first = serverPid(gateway, 'fs');

    process.kill(first, 'SIGKILL');
    await gateway.waitForLog(
      (line) => line['msg'] === 'MCP server exited' && line['signal'] === 'SIGKILL',
    );
    mock.enqueue(list('toolu_2'), { type: 'ok', text: 'Still one file.' });
    const events = await streamMessage(gateway, 's1', { text: 'list again' });

    expect(events.find((event) => event.event === 'tool-result')?.data).toMatchObject({
      id: 'toolu_2',
      isError: false,
      content: '[FILE] a.txt',
    });
    await gateway.waitForLog((line) => line['msg'] === 'MCP server restarted');
    const second = serverPid(gateway, 'fs');
    expect(second).not.toBe(first);
    expect(isAlive(second)).toBe(true);
  });
});

describe('a tool that ran is never run again', { timeout: 180_000 }, () => {
  // edit_file turns the line "count: 1" into "count: 1\ncount: 2": a second run adds a line more.
  const counter = () => join(data, 'counter.txt');
  const editIn = (dir: string) => ({
    type: 'ok' as const,
    toolCalls: [
      {
        id: 'toolu_edit',
        name: 'fs__edit_file',
        input: {
          path: join(dir, 'counter.txt'),
          edits: [{ oldText: 'count: 1', newText: 'count: 1\ncount: 2' }],
        },
      },
    ],
  });

  it('by a retry of the model call after it', async () => {
    await writeFile(counter(), 'count: 1\n');
    const gateway = await start(filesystem(['edit_file']));
    mock.enqueue(editIn(data), mockFaults.serverError(503), { type: 'ok', text: 'Counted.' });
    const events = await streamMessage(gateway, 's1', { text: 'count once' });

    expect(events.at(-1)).toMatchObject({ data: { outcome: 'reply', text: 'Counted.' } });
    expect(await readFile(counter(), 'utf8')).toBe('count: 1\ncount: 2\n');
    expect(events.filter((event) => event.event === 'tool-result')).toHaveLength(1);
    expect(
      events.filter((event) => event.event === 'decision').map((event) => event.data),
    ).toContainEqual(expect.objectContaining({ label: 'retry_same' }));
    // The retried call carries the result of the one run.
    const [, failed, retried] = mock.requests.map((request) => toolResultsOf(request.body));
    expect(retried).toEqual(failed);
    expect(retried).toMatchObject([{ tool_use_id: 'toolu_edit' }]);
    expect(retried?.[0]?.['is_error']).toBeUndefined();
  });

  it("by a client's retry after the gateway was killed mid-turn", async () => {
    await writeFile(counter(), 'count: 1\n');
    const gateway = await start(filesystem(['edit_file']));
    // The model call after the tool never answers: the gateway dies while it waits.
    mock.enqueue(editIn(data), { type: 'ok', text: 'Late.', firstChunkDelayMs: 600_000 });
    const message = { text: 'count once', clientMessageId: 'm-1' };
    const first = sendMessage(gateway, 's1', message).catch(() => undefined);
    await mock.waitForRequests(2);
    await gateway.kill();
    await first;
    expect(await readFile(counter(), 'utf8')).toBe('count: 1\ncount: 2\n');

    mock.enqueue({ type: 'ok', text: 'Counted.' });
    const restarted = await start(filesystem(['edit_file']), gateway.dir);
    const { body } = await sendMessage(restarted, 's1', message);
    expect(body).toMatchObject({ outcome: 'reply' });

    expect(await readFile(counter(), 'utf8')).toBe('count: 1\ncount: 2\n');
    const after = mock.requests.slice(2).map((request) => toolResultsOf(request.body));
    expect(after.length).toBeGreaterThan(0);
    for (const results of after) expect(results).toMatchObject([{ tool_use_id: 'toolu_edit' }]);
    expect(restarted.logs.some((line) => line['msg'] === 'MCP server restarting')).toBe(false);
  });
});

describe('shutdown', { timeout: 180_000 }, () => {
  it('closes every server with its process group: nothing a launcher started is left', async () => {
    const pidFile = join(data, 'stray.pid');
    const gateway = await startGateway({
      config: mcpGatewayConfig(mock, {
        mcp: {
          launched: {
            command: process.execPath,
            args: [LAUNCHER, MCP_BIN.everything, 'stdio'],
            env: { KEEL_STRAY_PID_FILE: pidFile },
            allow: ['echo'],
          },
        },
      }),
    });
    const launcher = serverPid(gateway, 'launched');
    const stray = Number(await readFile(pidFile, 'utf8'));
    expect(isAlive(launcher) && isAlive(stray)).toBe(true);

    expect(await gateway.stop()).toBe(0);
    await waitUntil(
      'the launcher and its helper to be gone',
      () => !isAlive(stray) && !isAlive(launcher),
    );
    await removeDir(gateway.dir);
  });
});
