/**
 * The floor of a proxy hop on this machine: a bare Node HTTP server that forwards each request to
 * the mock provider and passes the answer back, nothing else (no parsing, no validation, no
 * retries). `net` is a raw TCP pass-through (each client connection piped to one upstream
 * connection: no HTTP parsing at all, the floor of any proxy); `pipe` streams through `node:http`
 * with a keep-alive agent (the settings Keel's transport uses); `fetch` reads the request body,
 * sends it with Node's `fetch` (undici) and streams the answer back.
 * Prints `BARE_PROXY_LISTENING <url>`. Run by `start-bare-proxy.ts`, in its own process.
 */
import { Agent, createServer, type IncomingMessage, request, type ServerResponse } from 'node:http';
import { connect, createServer as createTcpServer, type Socket } from 'node:net';
import { Readable } from 'node:stream';

const [upstream = '', mode = 'pipe'] = process.argv.slice(2);
const target = new URL(upstream);
const agent = new Agent({ keepAlive: true, timeout: 4_000 });

function viaPipe(req: IncomingMessage, res: ServerResponse): void {
  const headers = { ...req.headers, host: target.host };
  const out = request(
    { host: target.hostname, port: target.port, path: req.url, method: req.method, headers, agent },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  req.pipe(out);
}

async function viaFetch(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const answer = await fetch(new URL(req.url ?? '/', target), {
    method: req.method ?? 'POST',
    headers: {
      'content-type': req.headers['content-type'] ?? 'application/json',
      authorization: req.headers.authorization ?? '',
    },
    body: Buffer.concat(chunks),
  });
  res.writeHead(answer.status, {
    'content-type': answer.headers.get('content-type') ?? 'application/json',
  });
  if (answer.body === null) res.end();
  else Readable.fromWeb(answer.body as import('node:stream/web').ReadableStream).pipe(res);
}

/** One upstream connection per client connection, bytes passed both ways as they come. */
const open = new Set<Socket>();
const tcpServer = createTcpServer((socket) => {
  open.add(socket);
  socket.once('close', () => open.delete(socket));
  socket.setNoDelay(true);
  const upstreamSocket = connect({ host: target.hostname, port: Number(target.port) });
  upstreamSocket.setNoDelay(true);
  socket.pipe(upstreamSocket).pipe(socket);
  socket.on('error', () => upstreamSocket.destroy());
  upstreamSocket.on('error', () => socket.destroy());
});

const server = createServer((req, res) => {
  if (mode === 'fetch') {
    viaFetch(req, res).catch(() => res.destroy());
  } else {
    viaPipe(req, res);
  }
});
const listening = mode === 'net' ? tcpServer : server;
listening.listen(0, '127.0.0.1', () => {
  const address = listening.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  console.log(`BARE_PROXY_LISTENING http://127.0.0.1:${address.port}`);
});
process.on('SIGTERM', () => {
  for (const socket of open) socket.destroy();
  listening.close(() => process.exit(0));
});
