// Issue 21 item 5: event-stream followers cost the gateway bounded memory. Past
// `events.maxFollowers` a new follower is refused with `429` (the contract's error body), and a
// follower whose socket never reads has its events dropped past `events.followerBufferBytes`:
// once it reads again it gets a `gap` event with how many it missed, then the live events.
// 30 such followers of 16 MB of replies grow the process by tens of MB, not hundreds.
import { readFile } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { createMockProvider, type MockProvider } from '@keel/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectApiError } from './support/expect-api-error';
import {
  type GatewayProcess,
  removeDir,
  sendMessage,
  startGateway,
} from './support/gateway-process';
import { readSse } from './support/sse-events';
import { waitUntil } from './support/wait-until';

let mock: MockProvider;
const gateways: GatewayProcess[] = [];

beforeAll(async () => {
  mock = await createMockProvider();
});
afterAll(async () => {
  for (const gateway of gateways) {
    await gateway.stop();
    await removeDir(gateway.dir);
  }
  await mock?.close();
});

async function gatewayWith(model: string, events: Record<string, unknown>) {
  const gateway = await startGateway({
    config: {
      sessionsDir: 'sessions',
      providers: [
        {
          id: 'hs',
          api: 'anthropic-messages',
          baseUrl: mock.anthropicBaseUrl,
          profiles: [{ id: 'main', apiKey: 'sk-keeltest-followers' }],
        },
      ],
      models: { primary: `hs/${model}` },
      events,
    },
  });
  gateways.push(gateway);
  return gateway;
}

function follow(gateway: GatewayProcess, path: string) {
  const controller = new AbortController();
  return gateway
    .fetch(path, { signal: controller.signal })
    .then((response) => ({ response, controller }));
}

describe('event-stream followers', () => {
  it('refuses a follower past events.maxFollowers with 429, and takes one again once a slot frees', async () => {
    const gateway = await gatewayWith('followers-cap', { maxFollowers: 2 });
    const first = await follow(gateway, '/v1/events?follow=1');
    const second = await follow(gateway, '/v1/sessions/cap-1/events?follow=1');
    expect([first.response.status, second.response.status]).toEqual([200, 200]);
    const readers = [first, second].map(({ response, controller }) =>
      readSse(response, controller),
    );

    for (const path of ['/v1/events?follow=1', '/v1/sessions/cap-1/events?follow=1']) {
      const refused = await gateway.fetch(path);
      if (refused.status !== 429) await refused.body?.cancel();
      expect(refused.status).toBe(429);
      expectApiError(refused.status, await refused.text(), 429, 'too_many_requests');
    }
    // Not following is no follower: the recent events still answer.
    expect((await gateway.fetch('/v1/sessions/cap-1/events')).status).toBe(200);

    // The followers still get events.
    expect((await sendMessage(gateway, 'cap-1', { text: 'hello' })).status).toBe(200);
    await readers[1]?.next((event) => (event.data as { type?: string }).type === 'turn-end');

    readers[0]?.close();
    let again: Response | undefined;
    await waitUntil('a slot to free', async () => {
      const response = await gateway.fetch('/v1/events?follow=1', {
        signal: AbortSignal.timeout(30_000),
      });
      if (response.status === 200) {
        again = response;
        return true;
      }
      await response.body?.cancel();
      return false;
    });
    expect(again?.headers.get('content-type')).toMatch(/^text\/event-stream/);
    await again?.body?.cancel();
    readers[1]?.close();
  });

  it('drops the events of a follower that does not read past its buffer, and tells it with a gap event', {
    timeout: 180_000,
  }, async () => {
    const model = 'followers-stall';
    const gateway = await gatewayWith(model, { followerBufferBytes: 65_536 });
    const stalled = await stalledFollower(gateway.url, '/v1/events?follow=1');

    // More than the kernel's socket buffers can hold for a reader that never reads (the
    // receiving and sending sides together); each reply is streamed to followers as deltas.
    const replyBytes = 2_000_000;
    const replies = 8;
    mock.enqueue(
      ...Array.from({ length: replies }, () => ({
        behavior: { type: 'ok' as const, text: 'y'.repeat(replyBytes), chunkSize: 4000 },
        match: { model },
      })),
    );
    for (let index = 0; index < replies; index += 1) {
      const answer = await sendMessage(gateway, `stall-${index}`, { text: 'long please' });
      expect(answer.body['outcome']).toBe('reply');
    }

    // The follower reads again: what it missed is named, then the live events follow.
    stalled.socket.resume();
    expect((await sendMessage(gateway, 'after-gap', { text: 'short' })).status).toBe(200);
    await waitUntil('the next turn after the gap', () =>
      stalled
        .text()
        .split('\n')
        .some((line) => line.includes('"sessionId":"after-gap"') && line.includes('"turn-end"')),
    );
    const text = stalled.text();
    const gap = /event: gap\ndata: (\{[^\n]*\})\n\n/.exec(text);
    expect(JSON.parse(gap?.[1] ?? '{}')).toEqual({ dropped: expect.any(Number) });
    expect(JSON.parse(gap?.[1] ?? '{}').dropped).toBeGreaterThan(0);
    expect(gap?.index).toBeLessThan(text.indexOf('"sessionId":"after-gap"'));
    // Most of what was streamed never waited in the gateway: far less than was sent reached it.
    expect(text.length).toBeLessThan((replies * replyBytes) / 2);
    stalled.socket.destroy();
  });

  it('holds 30 stalled followers of 16 MB of replies in bounded memory', {
    timeout: 300_000,
  }, async () => {
    const model = 'followers-rss';
    const gateway = await gatewayWith(model, {});
    expect((await sendMessage(gateway, 'warm-up', { text: 'hello' })).status).toBe(200);
    const before = await rssOf(gateway);
    const stalled = await Promise.all(
      Array.from({ length: 30 }, () => stalledFollower(gateway.url, '/v1/events?follow=1')),
    );
    const replies = 8;
    mock.enqueue(
      ...Array.from({ length: replies }, () => ({
        behavior: { type: 'ok' as const, text: 'r'.repeat(2_000_000), chunkSize: 4000 },
        match: { model },
      })),
    );
    for (let index = 0; index < replies; index += 1) {
      expect((await sendMessage(gateway, `rss-${index}`, { text: 'long' })).status).toBe(200);
    }
    // Unbounded, each follower would hold what its socket did not take: over 10 MB each.
    const grown = (await rssOf(gateway)) - before;
    expect(grown).toBeLessThan(200 * 1024 * 1024);
    for (const follower of stalled) follower.socket.destroy();
  });
});

/** The gateway process's resident memory, in bytes (Linux `/proc`). */
async function rssOf(gateway: GatewayProcess): Promise<number> {
  const status = await readFile(`/proc/${gateway.child.pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1]) * 1024;
}

/** A follower over a raw socket that sends its request and then reads nothing until resumed. */
function stalledFollower(
  baseUrl: string,
  path: string,
): Promise<{ socket: Socket; text: () => string }> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: url.hostname, port: Number(url.port) });
    let received = '';
    socket.on('error', reject);
    socket.once('connect', () => {
      socket.write(
        `GET ${path} HTTP/1.1\r\nhost: ${url.host}\r\naccept: text/event-stream\r\n\r\n`,
      );
    });
    socket.on('data', (chunk: Buffer) => {
      const first = received === '';
      received += chunk.toString('utf8');
      if (first) {
        // The headers arrived: the follower is registered. From now on, read nothing.
        expect(received).toMatch(/^HTTP\/1\.1 200/);
        socket.pause();
        resolve({ socket, text: () => received });
      }
    });
  });
}
