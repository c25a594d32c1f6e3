/** What `critical-path-probe.cjs` prints on each SIGUSR2 (medians; `gc` per message). */
export interface CriticalPathReport {
  messages: number;
  total: number;
  beforeUpstream: number;
  upstream: number;
  afterUpstream: number;
  fsync: number;
  fs: Record<'pre' | 'post' | 'after', { calls: number; ms: number }>;
  /** Per message. */
  gc: {
    scavenges: number;
    scavengeMs: number;
    full: number;
    fullMs: number;
    promotedBytes: number;
  };
  promises?: { pre: number; post: number };
}
