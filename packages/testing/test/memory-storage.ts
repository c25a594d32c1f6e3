/**
 * A small in-memory `SessionStorage`, for the storage kit's own tests: correct, it passes every
 * check; given a flaw, the check that guards against that flaw must fail. Not exported.
 */
import type {
  SessionLease,
  SessionStorage,
  TranscriptChangeKind,
  TranscriptEntry,
  TranscriptState,
} from '@keel/spec';
import { TRANSCRIPT_FORMAT_VERSION } from '@keel/spec';

/** Ways to break the memory storage, each one a conformance check must catch. */
export type MemoryStorageFlaw =
  | 'lossy-round-trip'
  | 'unbounded-tail'
  | 'blind-compare'
  | 'interleaved-batches'
  | 'partial-invalid-batch'
  | 'all-calls-orphaned'
  | 'lists-leases'
  | 'shared-leases'
  | 'reused-tokens'
  | 'no-token-check'
  | 'no-expected-check'
  | 'creates-on-refusal'
  | 'ignores-abort'
  | 'miscounted-text'
  | 'blind-read-since';

interface Session {
  entries: TranscriptEntry[];
  counter: bigint;
  holder: { token: bigint } | undefined;
  created: boolean;
}

function takeover(sessionId: string, change: TranscriptChangeKind): Error {
  return Object.assign(new Error(`session ${sessionId} changed (${change})`), {
    keelKind: 'session_takeover' as const,
    sessionId,
    phase: 'write' as const,
    change,
  });
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

export function memoryStorage(...flaws: MemoryStorageFlaw[]): SessionStorage {
  const has = (flaw: MemoryStorageFlaw) => flaws.includes(flaw);
  const sessions = new Map<string, Session>();
  const session = (id: string): Session => {
    let found = sessions.get(id);
    if (found === undefined) {
      found = { entries: [], counter: 0n, holder: undefined, created: false };
      sessions.set(id, found);
    }
    return found;
  };
  const checkSignal = (signal: AbortSignal | undefined) => {
    if (!has('ignores-abort')) signal?.throwIfAborted();
  };
  const stateOf = (id: string): TranscriptState => {
    const found = sessions.get(id);
    if (found === undefined || !found.created) {
      return { exists: false, identity: '', size: 0, tailLength: 0, tailDigest: '' };
    }
    return {
      exists: true,
      identity: id,
      size: found.entries.length,
      tailLength: 1,
      tailDigest: JSON.stringify(found.entries.at(-1) ?? null),
    };
  };
  const compare = (id: string, expected: TranscriptState): TranscriptChangeKind | undefined => {
    if (has('blind-compare')) return undefined;
    const now = stateOf(id);
    if (!now.exists) return expected.exists ? 'missing' : undefined;
    if (!expected.exists) return 'appended';
    if (now.identity !== expected.identity) return 'replaced';
    if (now.size < expected.size) return 'truncated';
    // The entry the expected state ended with, still there (grown or not).
    const atExpected = JSON.stringify(sessions.get(id)?.entries[expected.size - 1] ?? null);
    if (atExpected !== expected.tailDigest) return 'rewritten';
    return now.size > expected.size ? 'appended' : undefined;
  };
  const leaseChange = (id: string, lease: SessionLease): TranscriptChangeKind | undefined => {
    if (has('no-token-check')) return undefined;
    const found = session(id);
    if (found.counter > BigInt(lease.token)) return 'stale-token';
    return found.holder?.token === BigInt(lease.token) ? undefined : 'lock-lost';
  };
  const read = (id: string, entries: TranscriptEntry[]) => ({
    header: {
      type: 'header' as const,
      version: TRANSCRIPT_FORMAT_VERSION,
      sessionId: id,
      createdAt: '2026-01-01T00:00:00.000Z',
    },
    version: TRANSCRIPT_FORMAT_VERSION,
    entries: has('lossy-round-trip')
      ? entries.map(({ timestamp: _, ...rest }) => rest as TranscriptEntry)
      : entries,
    issues: [],
    exists: sessions.get(id)?.created ?? false,
    text: has('miscounted-text') ? { chars: entries.length, wide: false } : textOf(entries),
  });

  return {
    async read(id, options = {}) {
      checkSignal(options.signal);
      return read(id, [...(sessions.get(id)?.entries ?? [])]);
    },
    async readTail(id, options = {}) {
      checkSignal(options.signal);
      const entries = sessions.get(id)?.entries ?? [];
      let bytes = 0;
      let start = entries.length;
      while (start > 0 && (has('unbounded-tail') || bytes < (options.maxBytes ?? 1 << 20))) {
        start -= 1;
        bytes += JSON.stringify(entries[start]).length;
      }
      return read(id, entries.slice(start));
    },
    async readSince(id, since, options = {}) {
      checkSignal(options.signal);
      const change = has('blind-read-since') ? undefined : compare(id, since);
      if (change !== undefined && change !== 'appended') return undefined;
      return read(id, (sessions.get(id)?.entries ?? []).slice(since.size));
    },
    async state(id, options = {}) {
      checkSignal(options.signal);
      return stateOf(id);
    },
    async compare(id, expected, options = {}) {
      checkSignal(options.signal);
      return compare(id, expected);
    },
    async lease(id, options = {}) {
      const deadline = Date.now() + (options.timeoutMs ?? 30_000);
      const found = session(id);
      while (found.holder !== undefined && !has('shared-leases')) {
        checkSignal(options.signal);
        if (Date.now() > deadline) {
          throw Object.assign(new Error('lease timed out'), { keelKind: 'coordination' });
        }
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      checkSignal(options.signal);
      found.counter = has('reused-tokens') ? 1n : found.counter + 1n;
      const holder = { token: found.counter };
      found.holder = holder;
      let released = false;
      const lease: SessionLease = {
        sessionId: id,
        token: holder.token.toString(),
        get released() {
          return released;
        },
        isHeld: async () => !released && leaseChange(id, lease) === undefined,
        renew: async () => {
          const change = released ? 'lock-lost' : leaseChange(id, lease);
          if (change !== undefined) throw takeover(id, change);
        },
        release: async () => {
          released = true;
          if (found.holder === holder) found.holder = undefined;
        },
      };
      return lease;
    },
    async append(id, entries, options = {}) {
      checkSignal(options.signal);
      const found = session(id);
      if (has('creates-on-refusal')) found.created = true;
      const change =
        (options.lease === undefined ? undefined : leaseChange(id, options.lease)) ??
        (options.expected === undefined || has('no-expected-check')
          ? undefined
          : compare(id, options.expected));
      if (change !== undefined) throw takeover(id, change);
      for (const [index, entry] of entries.entries()) {
        if (entry.type === 'message' && !['user', 'assistant', 'tool'].includes(entry.role)) {
          throw new Error(`entry ${index} has an unknown role`);
        }
        const usage = (entry as { usage?: Record<string, unknown> }).usage;
        if (usage !== undefined && typeof usage['inputTokens'] !== 'number') {
          throw new Error(`entry ${index} has bad usage`);
        }
        if (has('partial-invalid-batch')) {
          found.entries.push(entry);
          found.created = true;
        }
      }
      found.created = true;
      for (const entry of entries) {
        if (has('partial-invalid-batch')) break;
        found.entries.push(entry);
        if (has('interleaved-batches')) await tick();
      }
      return { state: stateOf(id) };
    },
    async inspectTrailingToolUses(id, options = {}) {
      checkSignal(options.signal);
      const entries = sessions.get(id)?.entries ?? [];
      const last = entries.findLastIndex(
        (entry) => entry.type === 'message' && entry.role === 'assistant',
      );
      const assistant = entries[last];
      if (assistant?.type !== 'message') return { orphans: [], complete: true };
      const answered = new Set(
        entries
          .slice(last + 1)
          .flatMap((entry) => (entry.type === 'message' ? entry.content : []))
          .flatMap((block) => (block.type === 'tool_result' ? [block.toolUseId] : [])),
      );
      const calls = assistant.content.flatMap((block) =>
        block.type === 'tool_use' ? [block.id] : [],
      );
      const orphans = has('all-calls-orphaned')
        ? calls
        : calls.filter((call) => !answered.has(call));
      return { orphans, complete: true };
    },
    async list(options = {}) {
      checkSignal(options.signal);
      return [...sessions]
        .filter(([, found]) => found.created || has('lists-leases'))
        .map(([id]) => id);
    },
  };
}

/** The JSON text of `entries` as a store that read them would measure it. */
function textOf(entries: readonly TranscriptEntry[]): { chars: number; wide: boolean } {
  let chars = 0;
  let wide = false;
  for (const entry of entries) {
    const json = JSON.stringify(entry);
    chars += json.length;
    wide ||= /[\u0100-\uffff]/.test(json);
  }
  return { chars, wide };
}
