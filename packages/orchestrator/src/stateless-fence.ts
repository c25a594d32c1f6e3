import type { SessionFence } from '@keel/spec';

/**
 * The fence of a stateless call: there is no transcript to guard, so every step succeeds and
 * nothing is written (a call's output goes back to its client, never to storage).
 */
export function createStatelessFence(sessionId: string): SessionFence {
  let status: SessionFence['status'] = 'idle';
  return {
    sessionId,
    get status() {
      return status;
    },
    takeover: undefined,
    state: undefined,
    async acquire() {
      status = 'held';
    },
    async release() {
      status = 'released';
    },
    async reacquire() {
      status = 'held';
    },
    async append() {
      throw new Error('a stateless call writes nothing');
    },
    async check() {},
    async end() {
      status = 'ended';
    },
  };
}
