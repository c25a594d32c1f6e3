/**
 * The floor of a *durable* gateway on this machine: the least a server can do and still keep the
 * rule Keel keeps (DESIGN.md "Durable before acknowledged"). For each Chat Completions request it
 * parses the body, appends the last message as one JSON line to its session's file, forwards the
 * request upstream (`node:http`, keep-alive), reads the whole answer, appends it as a second line,
 * fsyncs the file once (the answer is sent whole, so nothing of it goes out before both lines are
 * durable, as Keel's JSON route does), and only then sends the answer back. Nothing
 * else: no lock or fence (one process owns the files), no transcript read, no validation, no
 * retries, no turn. The session is the `x-session` header (one file each, kept open).
 * Prints `DURABLE_PROXY_LISTENING <url>`. Run by `start-durable-proxy.ts`, in its own process.
 */
import { closeSync, openSync } from 'node:fs';
import { Agent, createServer, type IncomingMessage, request, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { appendLine, flushFile } from './durable-append';

const [upstream = '', dir = ''] = process.argv.slice(2);
const target = new URL(upstream);
const agent = new Agent({ keepAlive: true, timeout: 4_000 });
const files = new Map<string, number>();

function fileOf(session: string): number {
  let fd = files.get(session);
  if (fd === undefined) {
    fd = openSync(join(dir, `${session.replace(/[^\w-]/g, '_')}.jsonl`), 'a');
    files.set(session, fd);
  }
  return fd;
}

async function bodyOf(stream: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const body = await bodyOf(req);
  const parsed = JSON.parse(body.toString('utf8')) as { messages: unknown[] };
  const fd = fileOf(String(req.headers['x-session'] ?? 'default'));
  appendLine(fd, JSON.stringify(parsed.messages.at(-1)));
  const answer = await new Promise<IncomingMessage>((resolve, reject) => {
    const out = request(
      {
        host: target.hostname,
        port: target.port,
        path: req.url,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': body.length,
          authorization: req.headers.authorization ?? '',
        },
        agent,
      },
      resolve,
    );
    out.once('error', reject);
    out.end(body);
  });
  const reply = await bodyOf(answer);
  appendLine(fd, JSON.stringify({ role: 'assistant', raw: reply.toString('utf8') }));
  await flushFile(fd);
  res.writeHead(answer.statusCode ?? 502, {
    'content-type': answer.headers['content-type'] ?? 'application/json',
    'content-length': reply.length,
  });
  res.end(reply);
}

const server = createServer((req, res) => {
  handle(req, res).catch(() => res.destroy());
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  console.log(`DURABLE_PROXY_LISTENING http://127.0.0.1:${address.port}`);
});
process.on('SIGTERM', () => {
  for (const fd of files.values()) closeSync(fd);
  server.close(() => process.exit(0));
});
