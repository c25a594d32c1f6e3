import { fileURLToPath } from 'node:url';
import type { MockScriptEntry } from '@keel/testing';
import type { MockChildOptions, MockCommand, MockLogEntry, MockStats } from './mock-child';
import { type Service, startService } from './service';

/** The mock provider running in its own process. */
export interface MockProcess {
  readonly url: string;
  readonly openaiBaseUrl: string;
  readonly anthropicBaseUrl: string;
  readonly service: Service;
  stats(): Promise<MockStats>;
  /** Every model request so far to one of `models`, oldest first. */
  log(models: string[]): Promise<MockLogEntry[]>;
  reset(): Promise<void>;
  enqueue(...entries: MockScriptEntry[]): Promise<void>;
  close(): Promise<void>;
}

const childPath = fileURLToPath(new URL('./mock-child.ts', import.meta.url));

export async function startMockProcess(options: MockChildOptions): Promise<MockProcess> {
  const service = startService([childPath, JSON.stringify(options)], {
    nodeOptions: ['--import', 'tsx'],
    ipc: true,
  });
  const [, url = ''] = await service.waitForLine(/^MOCK_LISTENING (\S+)/);
  let nextId = 0;
  type Reply = { stats?: MockStats; log?: MockLogEntry[] };
  const pending = new Map<number, (reply: Reply) => void>();
  service.child.on('message', (reply: Reply & { id: number }) => {
    pending.get(reply.id)?.(reply);
    pending.delete(reply.id);
  });
  const ask = (command: Omit<MockCommand, 'id'>) =>
    new Promise<Reply>((resolve) => {
      const id = nextId++;
      pending.set(id, resolve);
      service.child.send({ ...command, id });
    });
  return {
    url,
    openaiBaseUrl: `${url}/v1`,
    anthropicBaseUrl: url,
    service,
    async stats() {
      return (await ask({ type: 'stats' })).stats as MockStats;
    },
    async log(models) {
      return (await ask({ type: 'log', models } as Omit<MockCommand, 'id'>)).log ?? [];
    },
    async reset() {
      await ask({ type: 'reset' });
    },
    async enqueue(...entries) {
      await ask({ type: 'enqueue', entries } as Omit<MockCommand, 'id'>);
    },
    async close() {
      service.child.disconnect();
      await service.stop();
    },
  };
}
