import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

// Why not the SDK's StdioClientTransport: it starts the server in the gateway's process group
// and closes it by its pid alone, so a launcher (`npx`, `uvx`, a shell script) dies and leaves
// the real server running as an orphan. Here the server leads its own process group, and
// every close (and every unexpected exit) ends the whole group.

/** Variables a server inherits from the gateway: enough to find and run programs, no keys. */
const INHERITED = ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER', 'TMPDIR', 'LANG'];

export interface StdioProcessOptions {
  command: string;
  args: readonly string[];
  /** Added to the inherited variables. */
  env: Readonly<Record<string, string>>;
  cwd: string;
  /** Each line the server writes to stderr. */
  onStderr?: (line: string) => void;
  /** The server process ended (by itself or closed). */
  onExit?: (exit: { code: number | null; signal: NodeJS.Signals | null }) => void;
  /** How long each step of a close waits (stdin closed, then SIGTERM, then SIGKILL); default 2 000 ms. */
  closeStepMs?: number;
}

export interface StdioProcessTransport extends Transport {
  /** The server's pid (its process group's id), once started. */
  readonly pid: number | undefined;
}

/** An MCP stdio transport whose server runs in its own process group. */
export function createStdioProcessTransport(options: StdioProcessOptions): StdioProcessTransport {
  const buffer = new ReadBuffer();
  const closeStepMs = options.closeStepMs ?? 2_000;
  let child: ChildProcess | undefined;
  let exited: Promise<unknown> | undefined;
  let closed = false;

  const transport: StdioProcessTransport = {
    get pid() {
      return child?.pid;
    },
    async start() {
      if (child !== undefined) throw new Error('already started');
      const env: Record<string, string> = {};
      for (const name of INHERITED) {
        const value = process.env[name];
        if (value !== undefined) env[name] = value;
      }
      const started = spawn(options.command, [...options.args], {
        cwd: options.cwd,
        env: { ...env, ...options.env },
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: process.platform !== 'win32',
        windowsHide: true,
      });
      child = started;
      exited = once(started, 'close').catch(() => undefined);
      started.stdout?.on('data', (chunk: Buffer) => {
        buffer.append(chunk);
        for (;;) {
          let message: JSONRPCMessage | null;
          try {
            message = buffer.readMessage();
          } catch (error) {
            transport.onerror?.(error as Error);
            continue;
          }
          if (message === null) break;
          transport.onmessage?.(message);
        }
      });
      forwardLines(started.stderr, options.onStderr);
      started.stdin?.on('error', (error) => transport.onerror?.(error));
      started.once('close', (code, signal) => {
        // The launcher is gone: whatever it started goes with it.
        killGroup(started, 'SIGTERM');
        options.onExit?.({ code, signal });
        if (!closed) {
          closed = true;
          transport.onclose?.();
        }
      });
      await new Promise<void>((resolve, reject) => {
        started.once('spawn', resolve);
        started.once('error', reject);
      });
    },
    async send(message) {
      const stdin = child?.stdin;
      if (stdin === undefined || stdin === null || !stdin.writable) {
        throw new Error('the server process is not running');
      }
      if (!stdin.write(serializeMessage(message))) await once(stdin, 'drain');
    },
    async close() {
      const running = child;
      if (running === undefined || exited === undefined) return;
      if (running.exitCode === null && running.signalCode === null) {
        running.stdin?.end();
        if (!(await settlesWithin(exited, closeStepMs))) {
          killGroup(running, 'SIGTERM');
          if (!(await settlesWithin(exited, closeStepMs))) {
            killGroup(running, 'SIGKILL');
            await exited;
          }
        }
      }
      killGroup(running, 'SIGKILL');
      buffer.clear();
      if (!closed) {
        closed = true;
        transport.onclose?.();
      }
    },
  };
  return transport;
}

/** Signals the server's whole process group (the server alone where there are no groups). */
function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    if (process.platform === 'win32') child.kill(signal);
    else process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  const timer = new AbortController();
  const result = await Promise.race([
    promise.then(() => true),
    delay(ms, false, { signal: timer.signal }).catch(() => false),
  ]);
  timer.abort();
  return result;
}

function forwardLines(
  stream: NodeJS.ReadableStream | null,
  onLine: ((line: string) => void) | undefined,
): void {
  if (stream === null) return;
  let rest = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop() ?? '';
    if (rest.length > 8_000) lines.push(rest);
    if (rest.length > 8_000) rest = '';
    for (const line of lines) if (line.trim() !== '') onLine?.(line.slice(0, 2_000));
  });
  stream.on('end', () => {
    if (rest.trim() !== '') onLine?.(rest.slice(0, 2_000));
  });
}
