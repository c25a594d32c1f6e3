// Just over our ~400 lines on purpose: the storage port is one contract (its operations, their
// options and results, the turn claims) read as a whole by every store that implements it.
import type { KindedError } from './error-kind';
import type {
  MessageEntry,
  TranscriptEntry,
  TranscriptHeader,
  TranscriptIssue,
} from './transcript';

/** Options every storage call takes. */
export interface StorageCallOptions {
  signal?: AbortSignal;
}

/**
 * What a fence remembers about a transcript, O(1) to compute and compare. A file store uses
 * `dev:ino` as `identity`, the byte length as `size` and SHA-256 digests of the last (and
 * first) bytes; a database uses a row id, the last sequence number and the last entry's hash.
 * Only the store that produced a state interprets it.
 */
export interface TranscriptState {
  readonly exists: boolean;
  readonly identity: string;
  readonly size: number;
  readonly tailLength: number;
  readonly tailDigest: string;
  /** Units at the start covered by `headDigest`; absent or 0 when not used. */
  readonly headLength?: number;
  readonly headDigest?: string;
}

/** A transcript as read, every line migrated to the current format. */
export interface TranscriptRead {
  /** `undefined` for a missing transcript or a headerless (version 0) file. */
  header: TranscriptHeader | undefined;
  /** The format version the entries were migrated from. */
  version: number;
  entries: TranscriptEntry[];
  /** Lines that were skipped, each with where it was. */
  issues: TranscriptIssue[];
  exists: boolean;
  /** The JSON text `entries` were parsed from, when the store read them as text (see below). */
  text?: TranscriptText;
}

/**
 * The JSON text a read's entries were parsed from, measured as it was parsed: a caller that
 * estimates what the entries take in memory reads it here instead of serializing them again.
 * Left out when an entry was migrated from an older format (its text is not the entry's).
 */
export interface TranscriptText {
  /** The entries' JSON lines, in UTF-16 code units (a framing character a line may count). */
  chars: number;
  /**
   * Whether a character past U+00FF occurs (V8 then keeps that string at two bytes a character),
   * or a `\u` escape that may stand for one: when in doubt, wide.
   */
  wide: boolean;
}

export interface ReadTailOptions extends StorageCallOptions {
  /** Upper bound on what is read from the end (bytes for a file store); default 1 MiB. */
  maxBytes?: number;
}

/**
 * What changed under a fence: the transcript was replaced or removed, shrank, grew, or kept its
 * size with other content; the lease was taken over while held (`lock-lost`); or a newer lease
 * exists than the one a write came with (`stale-token`).
 */
export type TranscriptChangeKind =
  | 'replaced'
  | 'missing'
  | 'truncated'
  | 'appended'
  | 'rewritten'
  | 'lock-lost'
  | 'stale-token';

/** Where a foreign change was noticed. */
export type SessionTakeoverPhase = 'prompt_reacquire' | 'cleanup' | 'write' | 'fence_check';

/**
 * The error a store or fence raises when the transcript changed under a writer or its lease is
 * no longer current. Classified as `session_takeover`: the turn ends with resend guidance.
 */
export interface SessionTakeoverErrorShape extends KindedError {
  readonly keelKind: 'session_takeover';
  readonly sessionId: string;
  readonly phase: SessionTakeoverPhase;
  readonly change: TranscriptChangeKind;
}

/**
 * Why a store could not do its work, as far as the caller needs to know: `no_space` (the disk or
 * quota is full: ENOSPC, EDQUOT), `read_only` (EROFS), `permission` (EACCES, EPERM), `exhausted`
 * (out of file descriptors: EMFILE, ENFILE), `unavailable` (the database is down, unreachable or
 * did not answer in time), `io` (anything else the storage medium refused).
 */
export type StorageFailureReason =
  | 'no_space'
  | 'read_only'
  | 'permission'
  | 'exhausted'
  | 'unavailable'
  | 'io';

/**
 * The error a store raises when its storage medium failed it (a full disk, a read-only or
 * unreadable directory, a database that is down or frozen). Classified as `storage`: the turn ends
 * at once with copy saying the message could not be stored; no retry, no fallback model, never
 * blamed on a model provider. Stores set `keelKind` together with their
 * `Symbol.for('keel.error.StorageError')` marker; the original error is the `cause`.
 */
export interface StorageErrorShape extends KindedError {
  readonly keelKind: 'storage';
  readonly reason: StorageFailureReason;
  /** What the store was doing (`lease`, `append`, `read`, …). */
  readonly operation: string;
  readonly sessionId: string | undefined;
  /** The system or driver error code when there is one (`ENOSPC`, `57014`, `ECONNREFUSED`). */
  readonly code: string | undefined;
}

/** Something that happened to a lease between calls, reported instead of swallowed. */
export type LeaseEvent =
  /** Keeping the lease alive failed once (a heartbeat or renewal error); it may still be held. */
  | { type: 'lease-renew-failed'; sessionId: string; token: string; error: unknown }
  /** The lease is gone: it expired and another writer took the session. */
  | { type: 'lease-lost'; sessionId: string; token: string };

export interface LeaseOptions extends StorageCallOptions {
  /**
   * How long the lease lives without a renewal. Stores renew a held lease on their own while the
   * process runs (a heartbeat), so a lease expires only when its holder stopped or froze.
   */
  ttlMs?: number;
  /** How long to wait for the current holder; past it the call rejects with a `coordination` error. */
  timeoutMs?: number;
  /** Observes the lease's life; must not throw (a throwing listener is ignored). */
  onEvent?: (event: LeaseEvent) => void;
}

/**
 * Exclusive write access to one session until released or expired. Each new lease of a session
 * gets a larger `token` than every earlier one (a fencing token): a write that carries an older
 * token is refused even if its holder still believes it holds the session.
 */
export interface SessionLease {
  readonly sessionId: string;
  /** The fencing token: a decimal integer string that only grows per session (compare with `BigInt`). */
  readonly token: string;
  readonly released: boolean;
  /** True while this lease is still the session's current one. */
  isHeld(options?: StorageCallOptions): Promise<boolean>;
  /** Extends the lease now. Rejects with a `session_takeover` error (`lock-lost`) when it is gone. */
  renew(options?: StorageCallOptions): Promise<void>;
  /** Lets the session go if this lease still holds it. Idempotent; takes no signal: cleanup runs to the end. */
  release(): Promise<void>;
}

/** When an append's entries are flushed (made durable): see `AppendOptions.flush`. */
export type FlushMode = 'before-return' | 'deferred' | 'with-next';

export interface AppendOptions extends StorageCallOptions {
  /** Refuse (`stale-token` / `lock-lost`) unless this lease is the session's current one. */
  lease?: SessionLease;
  /** Refuse (with what changed) unless the transcript is still exactly in this state. */
  expected?: TranscriptState;
  /**
   * `deferred`: return once the entries are written (every reader sees them, `state` describes
   * them) while they are still being flushed; `AppendResult.durable` settles when the flush has
   * (rejecting with a `storage` error when it failed). `with-next`: written and never flushed on
   * their own; the next flushed append to the transcript makes them durable with its own entries
   * (a flush covers every write before it), so they are for entries nobody is told about before
   * such an append (a turn's start for a message already durable); lost in a crash before it.
   * A store whose write is its flush (a database commit) returns durable entries either way.
   * Default `before-return`.
   */
  flush?: FlushMode;
  /**
   * The caller compared `expected` with the transcript, under `lease`, as its step just before
   * this append (a fence's acquire, reacquire or check), and compares again after it. A store
   * whose checks are not part of its write may then spare the part of its comparison that reads
   * the transcript: the file store still makes sure the file is the same one and of the same size
   * (and that the lease holds), but reads none of its bytes; a same-size rewrite made in between
   * is found by the caller's next comparison instead of refusing this write. Ignored without
   * `expected`, and by stores whose check is in their write (a database's `WHERE`).
   */
  checkedJustBefore?: boolean;
}

export interface AppendResult {
  /** The transcript's state right after this append, taken while the writer still held it. */
  state: TranscriptState;
  /** What the append had to repair first: a torn last line dropped, or a complete one terminated. */
  repaired?: 'dropped-torn-line' | 'terminated-last-line';
  /**
   * With `flush: 'deferred'`: settles once the entries are durable, rejects when the flush failed
   * (then nothing after them may be acknowledged). Absent: durable already.
   */
  durable?: Promise<void>;
}

/** What one bounded look at the end of a transcript shows about its last assistant message. */
export interface TrailingToolUses {
  /** Ids of `tool_use` blocks in the last assistant message that no later `tool_result` answers. */
  orphans: string[];
  /**
   * `true` when the look covered the whole last assistant message; `false` when the last
   * exchange is longer than the bound (`orphans` may then miss calls, never holds a false one).
   */
  complete: boolean;
}

export interface InspectOptions extends StorageCallOptions {
  /** Upper bound on what is read from the end (bytes for a file store); default 1 MiB. */
  maxBytes?: number;
}

/** Who runs a session's turn, as a turn claim records it. */
export interface TurnClaimHolder {
  /** The gateway (process) that runs the turn, as it named itself when claiming. */
  readonly owner: string;
  /**
   * The turn that took the claim. A gateway may hand a held claim on to its next turn of the same
   * session without releasing it; the claim then keeps this first turn's id (it names who claimed,
   * not necessarily the turn running now).
   */
  readonly turnId: string;
  /** The claim's fencing token: a decimal integer string that only grows per session (`BigInt`). */
  readonly token: string;
}

/**
 * A session's running turn, held by one gateway at a time across every gateway of the store: the
 * claim lives while its holder calls `heartbeat` more often than its `ttlMs` (the store does not
 * heartbeat on its own: a frozen turn must lose its claim). Expiry is judged by the store's clock
 * (the database's, or the lock file's heartbeat). Once it expired, another gateway may claim the
 * session with a larger token; the late holder then finds it is no longer held.
 */
export interface TurnClaim extends TurnClaimHolder {
  readonly sessionId: string;
  readonly released: boolean;
  /** True while this claim is still the session's current one. */
  isHeld(options?: StorageCallOptions): Promise<boolean>;
  /**
   * Extends the claim now. Rejects with a `session_takeover` error (`lock-lost`, or
   * `stale-token` when a newer claim exists) once it is gone.
   */
  heartbeat(options?: StorageCallOptions): Promise<void>;
  /** Lets the session's turn go if this claim still holds it. Idempotent; takes no signal. */
  release(): Promise<void>;
}

export interface ClaimTurnOptions extends StorageCallOptions {
  /** The claiming gateway's id (stable for the process, unique among gateways). */
  owner: string;
  turnId: string;
  /** How long the claim lives without a heartbeat; default the store's lease ttl. */
  ttlMs?: number;
}

/** A claim taken, or who holds the session's running turn now. */
export type ClaimTurnResult =
  | { readonly claimed: true; readonly claim: TurnClaim }
  | { readonly claimed: false; readonly holder: TurnClaimHolder };

/** What `queuedSince` found: only queued messages since `expected` (and the state now), or a change. */
export type QueuedSince =
  | {
      readonly change: undefined;
      readonly state: TranscriptState;
      readonly queued: number;
      /**
       * What those queued appends wrote, oldest first. The stores of Keel give them whenever
       * `queued` > 0; a fence cannot adopt queued messages a store does not give back.
       */
      readonly entries?: readonly TranscriptEntry[];
    }
  | { readonly change: TranscriptChangeKind };

/**
 * The turn claims of a store's sessions: at most one running turn per session across every
 * gateway. An optional capability of `SessionStorage` (`turnClaims`), so stores without it keep
 * working within one process.
 */
export interface SessionTurnClaims {
  /** One attempt, never waits: the claim (an expired one is taken over), or its live holder. */
  claimTurn(sessionId: string, options: ClaimTurnOptions): Promise<ClaimTurnResult>;
  /** The live holder of the session's running turn; `undefined` when none (released or expired). */
  currentTurn(
    sessionId: string,
    options?: StorageCallOptions,
  ): Promise<TurnClaimHolder | undefined>;
  /**
   * Writes user messages for the session's running turn from a gateway that does not hold it:
   * under a lease of its own, the append and a record that it was queued, so the running turn's
   * fence can tell it from a conflicting write (`queuedSince`). A message whose `clientMessageId`
   * the transcript holds already (checked under that lease) is not written again, so one client
   * message queued at two gateways at once is stored once; with nothing left to write, nothing is
   * written (no queued append) and the state now is returned.
   */
  appendQueued(
    sessionId: string,
    entries: readonly TranscriptEntry[],
    options?: StorageCallOptions,
  ): Promise<AppendResult>;
  /**
   * Whether everything written since `expected` was queued (`appendQueued`): then `change` is
   * `undefined`, `state` is the transcript's state now and `queued` the number of queued appends;
   * otherwise the change, as `compare` names it.
   */
  queuedSince(
    sessionId: string,
    expected: TranscriptState,
    options?: StorageCallOptions,
  ): Promise<QueuedSince>;
  /**
   * Optional: resolves `true` as soon as the session's transcript or turn claim may have changed
   * at any gateway (a hint: look again), `false` after `timeoutMs` without a sign of one. Rejects
   * with the signal's reason on abort. Without it, a waiter looks again every so often.
   */
  waitForChange?(sessionId: string, options: WaitForChangeOptions): Promise<boolean>;
}

export interface WaitForChangeOptions {
  /** The longest wait (the polling backstop). */
  timeoutMs: number;
  signal?: AbortSignal;
}

/**
 * Where session transcripts live, with fenced writes: the port the session fence, compaction and
 * the orchestrator use, implemented by the file store (`@keel/session-fence`) and by
 * `@keel/session-store-postgres`. `@keel/testing` has its conformance suite.
 */
export interface SessionStorage {
  /** Every entry, oldest first (the header apart). A missing transcript reads as empty. */
  read(sessionId: string, options?: StorageCallOptions): Promise<TranscriptRead>;
  /** The entries at the end, within `maxBytes`. */
  readTail(sessionId: string, options?: ReadTailOptions): Promise<TranscriptRead>;
  /**
   * Optional: only the entries written after `since` (a state this store gave), when the
   * transcript still holds everything `since` described and has only grown (`compare` would find
   * it `appended`, or unchanged: no entries then); `undefined` when it changed any other way —
   * replaced, missing, shrunk or rewritten — and must be read whole. For a caller that keeps the
   * entries up to a state (a cache) and would otherwise read them all again after another
   * writer's append.
   */
  readSince?(
    sessionId: string,
    since: TranscriptState,
    options?: StorageCallOptions,
  ): Promise<TranscriptRead | undefined>;
  /** The transcript's state now, for a later `compare` or `append({ expected })`. */
  state(sessionId: string, options?: StorageCallOptions): Promise<TranscriptState>;
  /** `undefined` while the transcript still matches `expected`, else what changed. */
  compare(
    sessionId: string,
    expected: TranscriptState,
    options?: StorageCallOptions,
  ): Promise<TranscriptChangeKind | undefined>;
  /** Waits for exclusive write access (see `SessionLease`), up to `timeoutMs`. */
  lease(sessionId: string, options?: LeaseOptions): Promise<SessionLease>;
  /**
   * Durably appends whole entries, all or none, creating the transcript (with its header) when
   * needed. With `lease` and/or `expected`, the check and the write are one atomic step: a
   * refused append (a `session_takeover` error naming the change) writes nothing.
   */
  append(
    sessionId: string,
    entries: readonly TranscriptEntry[],
    options?: AppendOptions,
  ): Promise<AppendResult>;
  /** The trailing orphaned `tool_use` ids of the session's own transcript. */
  inspectTrailingToolUses(sessionId: string, options?: InspectOptions): Promise<TrailingToolUses>;
  /** Every session id with a transcript, in no particular order. */
  list(options?: StorageCallOptions): Promise<string[]>;
  /**
   * The turn claims across gateways (`@keel/session-fence`'s file store and
   * `@keel/session-store-postgres` have them); absent in stores that serve one process.
   */
  readonly turnClaims?: SessionTurnClaims;
}

/** Where a session fence stands: never acquired, lease held, released around a model call, or over. */
export type SessionFenceStatus = 'idle' | 'held' | 'released' | 'ended';

export interface FenceCallOptions {
  signal?: AbortSignal;
}

export interface FenceAppendOptions extends FenceCallOptions {
  /**
   * `deferred`: the write's flush runs on after `append` resolves, so the fence can be released
   * meanwhile (see `AppendOptions.flush`); the result's `durable` settles with it, and the fence's
   * next write waits for it (and fails if it failed). `with-next`: not flushed on its own, the
   * fence's next flushed write covers it. Appends that share one write are flushed as the most
   * demanding of them asks. Default `before-return`.
   */
  flush?: FlushMode;
}

/**
 * One turn's hold on a session, over any `SessionStorage`: the lease is let go around each model
 * call, and every change made meanwhile by anyone but this fence is noticed on the way back.
 * Calls are serialised. A takeover is sticky: once detected, every later call rejects with the
 * same `session_takeover` error. `@keel/session-fence`'s `createSessionFence` implements it.
 */
export interface SessionFence {
  readonly sessionId: string;
  readonly status: SessionFenceStatus;
  /** The takeover detected in this turn, if any. */
  readonly takeover: SessionTakeoverErrorShape | undefined;
  /**
   * The transcript's state as the fence expects it (recorded at `acquire`, advanced by each owned
   * `append`); `undefined` before `acquire`. Equal states mean equal transcripts, so a caller may
   * keep what it read while it holds the same state.
   */
  readonly state: TranscriptState | undefined;
  /** Turn start: takes the lease and records the transcript's state. */
  acquire(options?: FenceCallOptions): Promise<void>;
  /** Before a model call: checks the state (phase `fence_check`), keeps it, lets the lease go. */
  release(options?: FenceCallOptions): Promise<void>;
  /** After a model call: takes a new lease and checks the state (phase `prompt_reacquire`). */
  reacquire(options?: FenceCallOptions): Promise<void>;
  /**
   * An owned write (reply, tool results, a message queued while the turn runs). While released
   * it takes a lease just for the write. Checks and writes atomically, then advances the state.
   */
  append(entries: readonly TranscriptEntry[], options?: FenceAppendOptions): Promise<AppendResult>;
  /** Checks the state without changing the lease (phase `fence_check`). */
  check(options?: FenceCallOptions): Promise<void>;
  /** Turn end: checks (phase `cleanup`) and lets go. A takeover already reported is not thrown again. */
  end(options?: FenceCallOptions): Promise<void>;
  /**
   * Queued user messages other gateways wrote for this session (`SessionTurnClaims.appendQueued`)
   * that the fence found on a check, a reacquire or a write and took as part of the transcript
   * (advancing `state`) instead of as a takeover: oldest first, each handed out once. Absent
   * in fences that never adopt (over a store without `turnClaims`).
   */
  takeAdopted?(): MessageEntry[];
}

/** Makes the fence for one turn of one session. */
export type SessionFenceFactory = (sessionId: string) => SessionFence;
