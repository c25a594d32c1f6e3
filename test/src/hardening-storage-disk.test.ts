/**
 * Issue 21, items 2 and 3, against the built gateway as a child process: a full disk (a real,
 * small tmpfs) or a read-only sessions directory (a real read-only bind mount) answers the message
 * with a storage error — `507` when full, `503` when read-only, `errorKind: "storage"`, copy saying
 * the message could not be stored — logged at error level; the process stays up, no model is
 * blamed (no retry, no fallback), and messages succeed once the disk does.
 */
import { createMockProvider, type MockProvider } from '@keel/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type GatewayProcess,
  removeDir,
  sendMessage,
  startGateway,
} from './support/gateway-process';
import { bindMountedDir, canMount, mountSmallDisk } from './support/small-disk';
import { waitUntil } from './support/wait-until';

const mountable = canMount();
let primary: MockProvider;
let spare: MockProvider;
const cleanups: Array<() => Promise<void> | void> = [];

beforeAll(async () => {
  if (!mountable) return;
  [primary, spare] = await Promise.all([createMockProvider(), createMockProvider()]);
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  primary?.reset();
  spare?.reset();
});
afterAll(async () => {
  await Promise.all([primary?.close(), spare?.close()]);
});

async function gatewayOn(sessionsDir: string): Promise<GatewayProcess> {
  const gateway = await startGateway({
    config: {
      sessionsDir,
      retry: { maxRetries: 1 },
      providers: [
        {
          id: 'primary',
          api: 'anthropic-messages',
          baseUrl: primary.anthropicBaseUrl,
          profiles: [{ id: 'main', apiKey: 'sk-keeltest-primary' }],
        },
        {
          id: 'spare',
          api: 'openai-chat',
          baseUrl: spare.openaiBaseUrl,
          profiles: [{ id: 'main', apiKey: 'sk-keeltest-spare' }],
        },
      ],
      models: { primary: 'primary/disk-model', fallbacks: ['spare/disk-spare'] },
    },
  });
  cleanups.push(async () => {
    await gateway.stop();
    await removeDir(gateway.dir);
  });
  return gateway;
}

const STORAGE_COPY = /could not be stored/;

function storageFailureLogged(gateway: GatewayProcess, reason: string): boolean {
  return gateway.logs.some(
    (line) =>
      line['level'] === 50 &&
      line['msg'] === 'storage failed' &&
      (line['storage'] as { reason?: string } | undefined)?.reason === reason,
  );
}

describe.runIf(mountable)('storage failures (tmpfs and bind mounts; needs root)', () => {
  it('a full disk: the first message to a new session is a 507 storage error, the gateway stays up, and once there is room the next message is answered', async () => {
    const disk = mountSmallDisk(1024 * 1024);
    cleanups.push(() => disk.remove());
    const gateway = await gatewayOn(`${disk.dir}/sessions`);
    await disk.fill();

    const refused = await sendMessage(gateway, 'new-session', { text: 'hello' });
    expect(refused.status).toBe(507);
    expect(refused.body).toMatchObject({ outcome: 'error', errorKind: 'storage' });
    expect(String(refused.body['text'])).toMatch(STORAGE_COPY);
    expect(String(refused.body['text'])).not.toMatch(/model provider/);
    expect(primary.requests).toHaveLength(0);
    expect(storageFailureLogged(gateway, 'no_space')).toBe(true);
    // Still up: no unhandled rejection, no crash.
    expect(gateway.child.exitCode).toBeNull();
    expect((await gateway.fetch('/healthz')).status).toBe(200);

    await disk.free();
    primary.enqueue({ type: 'ok', text: 'stored and answered' });
    const answered = await sendMessage(gateway, 'new-session', { text: 'hello again' });
    expect(answered.status).toBe(200);
    expect(answered.body).toMatchObject({ outcome: 'reply', text: 'stored and answered' });
    expect(gateway.child.exitCode).toBeNull();
  });

  it('a restart on a full disk: the gateway starts, answers 507 storage errors and stays up (no crash loop)', async () => {
    const disk = mountSmallDisk(1024 * 1024);
    cleanups.push(() => disk.remove());
    const sessionsDir = `${disk.dir}/sessions`;
    const first = await gatewayOn(sessionsDir);
    primary.enqueue({ type: 'ok', text: 'stored before the disk filled' });
    expect((await sendMessage(first, 'restarted', { text: 'one' })).status).toBe(200);
    await first.stop();
    await disk.fill();

    const second = await gatewayOn(sessionsDir);
    const refused = await sendMessage(second, 'restarted', { text: 'two' });
    expect(refused.status).toBe(507);
    expect(refused.body).toMatchObject({ outcome: 'error', errorKind: 'storage' });
    const fresh = await sendMessage(second, 'another-new-session', { text: 'three' });
    expect(fresh.status).toBe(507);
    expect(second.child.exitCode).toBeNull();
    expect(primary.requests).toHaveLength(1);
  });

  it('a disk that fills while the model answers: a 507 storage error, the model asked once, no fallback model asked', async () => {
    const disk = mountSmallDisk(1024 * 1024);
    cleanups.push(() => disk.remove());
    const gateway = await gatewayOn(`${disk.dir}/sessions`);
    // The answer waits long enough for the test to fill the disk once the request is in; it is
    // longer than the free part of the transcript's last page (tmpfs allocates whole pages).
    primary.enqueue({
      type: 'ok',
      text: `an answer with nowhere to go ${'x'.repeat(20_000)}`,
      chunkSize: 4_000,
      firstChunkDelayMs: 3_000,
    });
    const sent = sendMessage(gateway, 'mid-turn', { text: 'hello' });
    await primary.waitForRequests(1);
    await disk.fill();

    const refused = await sent;
    expect(refused.status).toBe(507);
    expect(refused.body).toMatchObject({ outcome: 'error', errorKind: 'storage' });
    expect(primary.requests).toHaveLength(1);
    expect(spare.requests).toHaveLength(0);
    expect(gateway.child.exitCode).toBeNull();

    await disk.free();
    primary.enqueue({ type: 'ok', text: 'room again' });
    const answered = await sendMessage(gateway, 'mid-turn', { text: 'once more' });
    expect(answered.body).toMatchObject({ outcome: 'reply', text: 'room again' });
  });

  it('a read-only sessions directory: a 503 storage error and /healthz not ready; writable again, both recover', async () => {
    const mount = bindMountedDir();
    cleanups.push(() => mount.remove());
    const gateway = await gatewayOn(mount.dir);
    mount.readOnly(true);

    const refused = await sendMessage(gateway, 'read-only', { text: 'hello' });
    expect(refused.status).toBe(503);
    expect(refused.body).toMatchObject({ outcome: 'error', errorKind: 'storage' });
    expect(String(refused.body['text'])).toMatch(STORAGE_COPY);
    expect(primary.requests).toHaveLength(0);
    expect(storageFailureLogged(gateway, 'read_only')).toBe(true);
    const health = await gateway.fetch('/healthz');
    expect(health.status).toBe(503);
    expect(await health.json()).toEqual({ status: 'unready', storage: 'read_only' });

    mount.readOnly(false);
    await waitUntil('/healthz ready', async () => (await gateway.fetch('/healthz')).status === 200);
    primary.enqueue({ type: 'ok', text: 'writable again' });
    const answered = await sendMessage(gateway, 'read-only', { text: 'hello again' });
    expect(answered.body).toMatchObject({ outcome: 'reply', text: 'writable again' });
  });
});
