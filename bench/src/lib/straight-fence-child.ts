/**
 * The session fence's file-system work written straight, to measure what Keel's implementation
 * of it costs beyond the calls themselves: the fixed parts (`native-route.ts`) plus, per message,
 * the same file-system calls the fenced rung (`fenced-parts-child.ts`) makes — a new fencing token
 * written to the session's counter file, the transcript compared (an `lstat` for its identity and
 * size, its first and last 4 KiB read and compared with the bytes kept), the turn's start and the
 * message appended after an `lstat`, the same comparison after the model call, the reply and the
 * turn's end appended after an `lstat` and fsynced, the answer sent, then the comparison once more
 * — in synchronous calls on descriptors kept open, with the bytes compared directly. Nothing else:
 * no lock file (the fence's kept lease costs no call while its last look proves it), no store or
 * fence object, no digests, no entry validation or batch framing, no torn-line repair; one turn at
 * a time per session by a promise chain. Not a fence: a change is thrown, never handled. Prints
 * `STRAIGHT_FENCE_LISTENING <url>`. Run by `start-durable-proxy.ts`, in its own process.
 */
import { randomUUID } from 'node:crypto';
import { closeSync, constants, lstatSync, openSync, readSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { type Message, TRANSCRIPT_FORMAT_VERSION } from '@keel/spec';
import { boundHeap } from '../../../apps/gateway/src/bound-heap';
import { flushFile } from './durable-append';
import { serveNativeRoute, upstreamTransport } from './native-route';

boundHeap();
const [upstream = '', dir = '', model = ''] = process.argv.slice(2);
const transport = upstreamTransport(upstream, model);
/** The bytes kept at each end of a transcript, as the file store's default windows. */
const WINDOW = 4096;
const appendFlags =
  constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW;

interface Transcript {
  path: string;
  fd: number;
  counterFd: number;
  token: number;
  dev: bigint;
  ino: bigint;
  size: number;
  /** The file's first bytes, once it outgrew the window (else the tail holds them). */
  head: Buffer;
  tail: Buffer;
  messages: Message[];
  /** The session's last turn, its last comparison included. */
  last: Promise<void>;
}
const transcripts = new Map<string, Transcript>();
const read = Buffer.allocUnsafe(WINDOW);

function transcriptOf(sessionId: string): Transcript {
  const known = transcripts.get(sessionId);
  if (known !== undefined) return known;
  const path = join(dir, `${sessionId}.jsonl`);
  const fd = openSync(path, appendFlags, 0o600);
  const header = Buffer.from(
    `${JSON.stringify({ type: 'header', version: TRANSCRIPT_FORMAT_VERSION, sessionId, createdAt: new Date().toISOString() })}\n`,
  );
  writeSync(fd, header);
  const stats = lstatSync(path, { bigint: true });
  const transcript: Transcript = {
    path,
    fd,
    counterFd: openSync(join(dir, `${sessionId}.counter`), 'w+'),
    token: 0,
    dev: stats.dev,
    ino: stats.ino,
    size: header.length,
    head: Buffer.alloc(0),
    tail: header,
    messages: [],
    last: Promise.resolve(),
  };
  transcripts.set(sessionId, transcript);
  return transcript;
}

/** The path still names the kept file, at the size last written. */
function compareIdentity(transcript: Transcript): void {
  const stats = lstatSync(transcript.path, { bigint: true });
  if (stats.dev !== transcript.dev || stats.ino !== transcript.ino) throw new Error('replaced');
  if (Number(stats.size) !== transcript.size) throw new Error('size changed');
}

function compareRange(transcript: Transcript, kept: Buffer, at: number): void {
  const length = readSync(transcript.fd, read, 0, kept.length, at);
  if (length !== kept.length || read.compare(kept, 0, kept.length, 0, length) !== 0)
    throw new Error('rewritten');
}

/** What the fence's acquire, reacquire and end compare: identity, size, head and tail. */
function compare(transcript: Transcript): void {
  compareIdentity(transcript);
  if (transcript.head.length > 0) compareRange(transcript, transcript.head, 0);
  compareRange(transcript, transcript.tail, transcript.size - transcript.tail.length);
}

/** An owned write right after a comparison: identity and size, then the lines. */
function append(transcript: Transcript, lines: string): void {
  compareIdentity(transcript);
  const bytes = Buffer.from(lines);
  writeSync(transcript.fd, bytes);
  transcript.size += bytes.length;
  if (transcript.head.length === 0 && transcript.size > 2 * WINDOW) {
    const head = Buffer.allocUnsafe(WINDOW);
    readSync(transcript.fd, head, 0, WINDOW, 0);
    transcript.head = head;
  }
  const tail = Buffer.concat([transcript.tail, bytes]);
  transcript.tail = tail.length > WINDOW ? Buffer.from(tail.subarray(tail.length - WINDOW)) : tail;
}

function line(fields: Record<string, unknown>): string {
  return `${JSON.stringify({ id: randomUUID(), timestamp: new Date().toISOString(), ...fields })}\n`;
}

await serveNativeRoute(
  'STRAIGHT_FENCE',
  async (sessionId, text) => {
    const transcript = transcriptOf(sessionId);
    const before = transcript.last;
    let turnDone: () => void = () => undefined;
    transcript.last = new Promise((resolve) => {
      turnDone = resolve;
    });
    await before;
    try {
      transcript.token += 1;
      writeSync(transcript.counterFd, String(transcript.token).padStart(20, '0'), 0);
      compare(transcript);
      const turnId = randomUUID();
      const messageId = randomUUID();
      const content = [{ type: 'text' as const, text }];
      append(
        transcript,
        line({ type: 'message', messageId, turnId, role: 'user', content }) +
          line({ type: 'turn', phase: 'start', turnId, messageId }),
      );
      let reply = '';
      for await (const event of transport.stream({
        messages: [...transcript.messages, { role: 'user', content }],
      })) {
        if (event.type === 'text-delta') reply += event.text;
      }
      compare(transcript);
      const answer = [{ type: 'text' as const, text: reply }];
      append(
        transcript,
        line({ type: 'message', turnId, role: 'assistant', content: answer }) +
          line({ type: 'turn', phase: 'end', turnId, messageId, outcome: 'reply' }),
      );
      await flushFile(transcript.fd);
      transcript.messages.push({ role: 'user', content }, { role: 'assistant', content: answer });
      return { outcome: 'reply', text: reply, model: `mock/${model}`, provider: 'mock' };
    } finally {
      // The last comparison after the answer, as the fence's end.
      setImmediate(() => {
        try {
          compare(transcript);
        } finally {
          turnDone();
        }
      });
    }
  },
  () => {
    for (const transcript of transcripts.values()) {
      closeSync(transcript.fd);
      closeSync(transcript.counterFd);
    }
  },
);
