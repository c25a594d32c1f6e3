import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TurnEvent } from '@keel/spec';
import { describe, expect, it } from 'vitest';
import { decisionLogPlugin } from './decision-log-plugin';

const base = { sessionId: 's1', turnId: 't1', at: Date.UTC(2026, 10, 30) };
const target = { providerId: 'anthropic', profileId: 'k1', model: 'sonnet' };

describe('the decision-log plugin', () => {
  it('writes one line per decision, and nothing for other events', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'keel-decision-log-'));
    try {
      const path = join(dir, 'logs', 'decisions.jsonl');
      const plugin = await decisionLogPlugin({ path });
      expect(plugin).toMatchObject({ specificationVersion: 'v1', name: 'decision-log' });
      const events: TurnEvent[] = [
        { ...base, type: 'turn-start', messageId: 'm1' },
        {
          ...base,
          type: 'decision',
          label: 'rotate_profile',
          reason: 'overloaded',
          from: target,
          to: { ...target, profileId: 'k2' },
        },
        { ...base, type: 'decision', label: 'wait', reason: 'rate_limit', delayMs: 1000 },
      ];
      for (const event of events) plugin.onEvent?.(event);
      const lines = (await readFile(path, 'utf8'))
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      expect(lines).toEqual([
        {
          at: '2026-11-30T00:00:00.000Z',
          sessionId: 's1',
          turnId: 't1',
          label: 'rotate_profile',
          reason: 'overloaded',
          from: 'anthropic/sonnet#k1',
          to: 'anthropic/sonnet#k2',
        },
        {
          at: '2026-11-30T00:00:00.000Z',
          sessionId: 's1',
          turnId: 't1',
          label: 'wait',
          reason: 'rate_limit',
          delayMs: 1000,
        },
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses to start without a path', () => {
    expect(() => decisionLogPlugin({ path: '' })).toThrow(/options.path/);
  });
});
