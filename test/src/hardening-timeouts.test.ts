import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type GatewayProcess, removeDir, startGateway } from './support/gateway-process';

// Slow request bodies: a client that sends its request slowly, or never finishes it, gets a 408
// once the configured time is up, and cannot keep a stopping gateway alive past shutdown.graceMs.

const demo = {
  sessionsDir: 'sessions',
  providers: [{ id: 'demo', api: 'demo' }],
  models: { primary: 'demo/keel-demo' },
};

let gateway: GatewayProcess | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await gateway?.stop();
  if (gateway !== undefined) await removeDir(gateway.dir);
  gateway = undefined;
});

/** A socket to the gateway that has written `head` and collects what comes back until it ends. */
async function halfSent(head: string): Promise<{ socket: Socket; ended: Promise<string> }> {
  const url = new URL(gateway!.url);
  const socket = connect({ host: url.hostname, port: Number(url.port) });
  sockets.push(socket);
  let received = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => {
    received += chunk;
  });
  const ended = new Promise<string>((resolve) => {
    socket.once('close', () => resolve(received));
  });
  socket.on('error', () => undefined);
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  socket.write(head);
  return { socket, ended };
}

const bodyHead = (host: string, path: string) =>
  `POST ${path} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{"text":"hal`;

describe('request timeouts (server.requestTimeoutMs, server.headersTimeoutMs)', () => {
  it('a body that stops arriving is answered 408 and the connection closed', async () => {
    gateway = await startGateway({
      config: { ...demo, server: { requestTimeoutMs: 1_000, headersTimeoutMs: 500 } },
    });
    const { ended } = await halfSent(
      bodyHead(new URL(gateway.url).host, '/v1/sessions/slow/messages'),
    );
    const answer = await ended;
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toContain('"code":"invalid_request"');
    // Nothing half-sent became a message.
    expect((await gateway.fetch('/v1/sessions/slow')).status).toBe(404);
  });

  it('headers that stop arriving are answered 408 and the connection closed', async () => {
    gateway = await startGateway({
      config: { ...demo, server: { requestTimeoutMs: 60_000, headersTimeoutMs: 500 } },
    });
    const { ended } = await halfSent(
      `GET /v1/sessions HTTP/1.1\r\nHost: ${new URL(gateway.url).host}\r\nX-Slow: `,
    );
    expect(await ended).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('refuses a headers timeout over the request timeout, naming it', async () => {
    await expect(
      startGateway({
        config: { ...demo, server: { requestTimeoutMs: 1_000, headersTimeoutMs: 2_000 } },
      }),
    ).rejects.toThrow(/server\.headersTimeoutMs: headersTimeoutMs must not be over/);
  });
});

describe('SIGTERM with half-sent requests open', () => {
  it('ends within shutdown.graceMs: the half-sent connections are closed, the process exits 0', async () => {
    gateway = await startGateway({
      // Request timeouts far away: only the shutdown may end these connections.
      config: {
        ...demo,
        server: { requestTimeoutMs: 600_000, headersTimeoutMs: 600_000 },
        shutdown: { graceMs: 500 },
        // Per-request lines (`incoming request`) are written at debug.
        logging: { level: 'debug' },
      },
    });
    const host = new URL(gateway.url).host;
    const headersOnly = await halfSent(`GET /v1/sessions HTTP/1.1\r\nHost: ${host}\r\nX-Slow: `);
    const bodyCut = await halfSent(bodyHead(host, '/v1/sessions/slow/messages'));
    await gateway.waitForLog(
      (line) =>
        line['msg'] === 'incoming request' &&
        (line['req'] as { url?: string } | undefined)?.url === '/v1/sessions/slow/messages',
    );
    expect(await gateway.stop('SIGTERM')).toBe(0);
    await headersOnly.ended;
    await bodyCut.ended;
    expect(gateway.output()).toContain('"msg":"stopped"');
  });
});
