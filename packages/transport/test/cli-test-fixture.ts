/** Test-only helpers shared by the claude-cli tests: a scratch directory and the fake CLI. */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ModelCallOptions, ModelRequest } from '@keel/spec';
import { createFakeClaude, type FakeClaude, type FakeClaudeScenario } from '@keel/testing';
import { onTestFinished } from 'vitest';
import { isProcessAlive } from '../src/claude-cli/process-tree';
import type { Transport } from '../src/types';
import { type Drained, drain } from './drain';

export { drain };

export interface CliTestFixture {
  dir: string;
  /** The CLI's working directory. */
  cwd: string;
  fake: FakeClaude;
}

/** A scratch directory with the fake CLI in it, removed when the current test finishes. */
export function createCliTestFixture(scenario: FakeClaudeScenario): CliTestFixture {
  const dir = mkdtempSync(join(tmpdir(), 'keel-claude-cli-'));
  const cwd = join(dir, 'work');
  mkdirSync(cwd, { recursive: true });
  const fake = createFakeClaude({ dir, scenario });
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return {
    dir,
    cwd,
    fake,
  };
}

export function userTurn(text: string) {
  return { role: 'user' as const, content: text };
}

export function assistantTurn(text: string) {
  return { role: 'assistant' as const, content: text };
}

/** Runs one call and aborts it as soon as the CLI reports its first tool call. */
export function abortAtToolCall(
  transport: Transport,
  request: ModelRequest,
  options: Omit<ModelCallOptions, 'signal'> = {},
): Promise<Drained> {
  const controller = new AbortController();
  return drain(transport.stream(request, { ...options, signal: controller.signal }), (event) => {
    if (event.type === 'tool-call') controller.abort();
  });
}

/** The pids of every process the fake CLI started (itself and its tool processes). */
export function fakeProcessIds(fixture: CliTestFixture): number[] {
  return fixture.fake.log().flatMap((entry) => (entry.type === 'signal' ? [] : [entry.pid]));
}

/** The prompt of each run of the fake CLI, in order (what it read: argument or stdin). */
export function fakePrompts(fixture: CliTestFixture): string[] {
  return fixture.fake.log().flatMap((entry) => (entry.type === 'call' ? [entry.prompt] : []));
}

/** The signals the fake CLI received, in order. */
export function fakeSignals(fixture: CliTestFixture): string[] {
  return fixture.fake.log().flatMap((entry) => (entry.type === 'signal' ? [entry.signal] : []));
}

/** The fake CLI's processes that are still alive (expected: none, once a call returned). */
export function aliveFakeProcesses(fixture: CliTestFixture): number[] {
  return fakeProcessIds(fixture).filter((pid) => isProcessAlive(pid));
}
