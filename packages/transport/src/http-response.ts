// Why this exists: `httpFetch` used to hand the SDKs a standard `Response` over
// `Readable.toWeb(answer)`. The SDKs read a streamed answer with `for await` over `response.body`
// (openai 5 and 6, @anthropic-ai/sdk), and a web stream in between costs each model call a
// `ReadableStream` (on Node 20 also a `makeTransferable`), a `Response` and a promise per chunk
// read through it: about 6 % of the gateway's CPU per message in a profile of 2026-12-03. This is
// what the SDKs read of a `Response`, over the `node:http` answer itself; the web stream is made
// only for a reader that asks for one (`body.getReader()`, as openai 7 does, `pipeTo`, `tee`, …).
import { Readable } from 'node:stream';
import type { ReadableWritablePair, StreamPipeOptions } from 'node:stream/web';

/**
 * How long a body its reader stopped reading before its end may take to end by itself. An SDK
 * stops at the protocol's last event (`@anthropic-ai/sdk` at `message_stop`), a moment before the
 * answer's last bytes: read to its end, the answer lets its connection go back to the pool; cut, it
 * would cost the next call a new connection (on the internet, a new TLS handshake).
 */
export const LET_GO_GRACE_MS = 25;

/**
 * An answer's body: iterated (`for await`), it yields the answer's bytes as they arrive, straight
 * from the Node stream; asked for a web stream's methods, it becomes one (`Readable.toWeb`) and
 * is read through that from then on.
 */
export class HttpBody implements AsyncIterable<Uint8Array> {
  #source: Readable;
  #cut: () => void;
  #web: ReadableStream<Uint8Array> | undefined;
  #used = false;
  #letGo = false;

  /** `cut` stops the answer for good (its connection closed); by default the source is destroyed. */
  constructor(source: Readable, cut: () => void = () => source.destroy()) {
    this.#source = source;
    this.#cut = cut;
  }

  /**
   * Whether its reader stopped iterating before the end: what is left is read and dropped, and the
   * answer cut if it does not end within `LET_GO_GRACE_MS`. An abort then changes nothing.
   */
  get letGo(): boolean {
    return this.#letGo;
  }

  /** Whether reading has begun (then `text()` and the like refuse, as a `Response` does). */
  get used(): boolean {
    return this.#used || this.#web?.locked === true;
  }

  get locked(): boolean {
    return this.#web?.locked ?? this.#used;
  }

  [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    if (this.#web !== undefined) return this.#web[Symbol.asyncIterator]();
    this.#used = true;
    const iterator = this.#source.iterator({ destroyOnReturn: false });
    const body: AsyncIterableIterator<Uint8Array> = {
      next: () => iterator.next(),
      return: async (value?: unknown) => {
        const done = (await iterator.return?.(value)) ?? { done: true, value: undefined };
        this.#finishAlone();
        return done;
      },
      [Symbol.asyncIterator]: () => body,
    };
    return body;
  }

  /** Reads what is left, unread, so the answer ends and keeps its connection; cut if it lingers. */
  #finishAlone(): void {
    const source = this.#source;
    this.#letGo = true;
    if (source.readableEnded || source.destroyed) return;
    // Cut after the loop's next look at its sockets: bytes that arrived meanwhile end it first.
    const timer = setTimeout(
      () => setImmediate(() => source.readableEnded || this.#cut()),
      LET_GO_GRACE_MS,
    );
    const settle = () => clearTimeout(timer);
    source.once('end', settle);
    source.once('close', settle);
    source.resume();
  }

  /** This body as a web `ReadableStream` (made once, on the first call). */
  stream(): ReadableStream<Uint8Array> {
    if (this.#web === undefined) {
      if (this.#used) throw new TypeError('Body is unusable: Body has already been read');
      this.#web = Readable.toWeb(this.#source) as ReadableStream<Uint8Array>;
    }
    return this.#web;
  }

  getReader(): ReadableStreamDefaultReader<Uint8Array> {
    return this.stream().getReader();
  }

  cancel(reason?: unknown): Promise<void> {
    if (this.#web !== undefined) return this.#web.cancel(reason);
    this.#used = true;
    this.#cut();
    return Promise.resolve();
  }

  pipeTo(destination: WritableStream<Uint8Array>, options?: StreamPipeOptions): Promise<void> {
    return this.stream().pipeTo(destination, options);
  }

  pipeThrough<T>(
    transform: ReadableWritablePair<T, Uint8Array>,
    options?: StreamPipeOptions,
  ): ReadableStream<T> {
    return this.stream().pipeThrough(transform, options);
  }

  tee(): [ReadableStream<Uint8Array>, ReadableStream<Uint8Array>] {
    return this.stream().tee();
  }

  /** A copy of what is left to read; this body goes on with the other half of the tee. */
  split(): ReadableStream<Uint8Array> {
    const [kept, copy] = this.tee();
    this.#web = kept;
    return copy;
  }

  /** Every byte of the body, once. */
  async bytes(): Promise<Uint8Array> {
    if (this.used) throw new TypeError('Body is unusable: Body has already been read');
    const chunks: Uint8Array[] = [];
    for await (const chunk of this) chunks.push(chunk);
    return chunks.length === 1 ? (chunks[0] as Uint8Array) : Buffer.concat(chunks);
  }
}

const EMPTY = new Uint8Array(0);

/**
 * What `httpFetch` resolves with: a `Response` as the SDKs read it — status, headers, `ok`, and
 * the body read whole (`text`, `json`, `arrayBuffer`, `bytes`, `blob`) or iterated (`body`).
 * `clone()` gives a standard `Response` over half of a tee of what is left.
 */
export class HttpResponse {
  readonly status: number;
  readonly statusText: string;
  readonly headers: Headers;
  readonly url: string;
  readonly body: HttpBody | null;
  readonly redirected = false;
  readonly type = 'basic';

  constructor(
    body: Readable | null,
    init: {
      status: number;
      statusText: string;
      headers: Headers;
      url: string;
      /** Stops the answer for good (see `HttpBody`); by default `body` is destroyed. */
      cut?: () => void;
    },
  ) {
    this.status = init.status;
    this.statusText = init.statusText;
    this.headers = init.headers;
    this.url = init.url;
    this.body = body === null ? null : new HttpBody(body, init.cut);
  }

  get ok(): boolean {
    return this.status >= 200 && this.status < 300;
  }

  get bodyUsed(): boolean {
    return this.body?.used ?? false;
  }

  bytes(): Promise<Uint8Array> {
    return this.body === null ? Promise.resolve(EMPTY) : this.body.bytes();
  }

  async text(): Promise<string> {
    // As `Response.text()`: UTF-8, a leading byte order mark dropped, bad sequences replaced.
    return new TextDecoder().decode(await this.bytes());
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = await this.bytes();
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }

  async blob(): Promise<Blob> {
    const type = this.headers.get('content-type');
    return new Blob([await this.bytes()], type === null ? {} : { type });
  }

  clone(): Response {
    const init = { status: this.status, statusText: this.statusText, headers: this.headers };
    return new Response(this.body === null ? null : this.body.split(), init);
  }
}
