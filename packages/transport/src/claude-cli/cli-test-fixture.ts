/** Test-only helpers shared by the claude-cli tests: a scratch directory and the fake CLI. */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFakeClaude, type FakeClaude, type FakeClaudeScenario } from '@keel/testing';
import type { TransportEvent } from '../types';

export interface CliTestFixture {
  dir: string;
  /** The CLI's working directory. */
  cwd: string;
  fake: FakeClaude;
  cleanup(): void;
}

export function createCliTestFixture(scenario: FakeClaudeScenario): CliTestFixture {
  const dir = mkdtempSync(join(tmpdir(), 'keel-claude-cli-'));
  const cwd = join(dir, 'work');
  mkdirSync(cwd, { recursive: true });
  const fake = createFakeClaude({ dir, scenario });
  return {
    dir,
    cwd,
    fake,
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Runs one call to its end; returns the events and the error it threw, if any. */
export async function collect(
  iterable: AsyncIterable<TransportEvent>,
  onEvent?: (event: TransportEvent) => void,
): Promise<{ events: TransportEvent[]; error: unknown }> {
  const events: TransportEvent[] = [];
  try {
    for await (const event of iterable) {
      events.push(event);
      onEvent?.(event);
    }
    return { events, error: undefined };
  } catch (error) {
    return { events, error };
  }
}

export function userTurn(text: string) {
  return { role: 'user' as const, content: text };
}

export function assistantTurn(text: string) {
  return { role: 'assistant' as const, content: text };
}
