import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { classifyError } from './classify-error';

/*
 * Real undici errors from real loopback sockets: Node's global fetch against a raw TCP server
 * that misbehaves on purpose.
 */

let server: Server | undefined;
const sockets = new Set<Socket>();

async function listen(onConnection: (socket: Socket) => void): Promise<string> {
  server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    onConnection(socket);
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return `http://127.0.0.1:${address.port}/`;
}

afterEach(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

async function fetchError(url: string, init?: RequestInit): Promise<unknown> {
  try {
    const response = await fetch(url, init);
    await response.text();
  } catch (error) {
    return error;
  }
  throw new Error('expected fetch to fail');
}

describe('real undici errors', () => {
  it('connection refused → connection (fetch failed, cause ECONNREFUSED)', async () => {
    const url = await listen(() => {});
    await new Promise<void>((resolve) => server?.close(() => resolve()));
    server = undefined;
    const error = await fetchError(url);
    expect(error).toMatchObject({ message: 'fetch failed' });
    expect(classifyError(error)).toMatchObject({ kind: 'connection', code: 'ECONNREFUSED' });
  });

  it('socket closed before headers → connection (other side closed)', async () => {
    const url = await listen((socket) => socket.once('data', () => socket.destroy()));
    const error = await fetchError(url);
    expect(classifyError(error)).toMatchObject({ kind: 'connection', code: 'UND_ERR_SOCKET' });
  });

  it('socket closed mid-body → connection (TypeError: terminated)', async () => {
    const url = await listen((socket) =>
      socket.once('data', () => {
        socket.write('HTTP/1.1 200 OK\r\ncontent-length: 1000\r\n\r\npartial', () =>
          socket.destroy(),
        );
      }),
    );
    const error = await fetchError(url);
    expect(error).toMatchObject({ name: 'TypeError', message: 'terminated' });
    expect(classifyError(error).kind).toBe('connection');
  });

  it('caller abort while waiting for headers → caller_abort; same error without the signal → provider_abort', async () => {
    const controller = new AbortController();
    const url = await listen((socket) => socket.once('data', () => controller.abort()));
    const error = await fetchError(url, { signal: controller.signal });
    expect(error).toMatchObject({ name: 'AbortError' });
    expect(classifyError(error, { signal: controller.signal }).kind).toBe('caller_abort');
    expect(classifyError(error).kind).toBe('provider_abort');
  });

  it('an AbortSignal.timeout-style TimeoutError reason → timeout when it is not the caller signal', async () => {
    const controller = new AbortController();
    const url = await listen((socket) =>
      socket.once('data', () =>
        controller.abort(
          new DOMException('The operation was aborted due to timeout', 'TimeoutError'),
        ),
      ),
    );
    const error = await fetchError(url, { signal: controller.signal });
    expect(error).toMatchObject({ name: 'TimeoutError' });
    expect(classifyError(error).kind).toBe('timeout');
  });
});
