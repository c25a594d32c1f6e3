import type { SessionFence } from '@keel/spec';

/**
 * The fence of a stateless call: there is no transcript to guard, so every step succeeds and
 * nothing is written (a call's output goes back to its client, never to storage).
 */
export function createStatelessFence(sessionId: string): SessionFence {
  // A field of its own, not a getter in the literal (which would keep the fence's scope alive
  // through scavenges: see `fenceProperties` in adopting-fence.ts); only this fence changes it.
  const fence: SessionFence & { status: SessionFence['status'] } = {
    sessionId,
    status: 'idle',
    takeover: undefined,
    state: undefined,
    async acquire() {
      fence.status = 'held';
    },
    async release() {
      fence.status = 'released';
    },
    async reacquire() {
      fence.status = 'held';
    },
    async append() {
      throw new Error('a stateless call writes nothing');
    },
    async check() {},
    async end() {
      fence.status = 'ended';
    },
  };
  return fence;
}
