/**
 * What a holder's last look at its lock file proves without looking again.
 *
 * A contender takes a live holder's lock only once it is stale: its heartbeat (the file's mtime)
 * older than the holder's ttl (a dead owner's pid is the other way, and a holder that asks is
 * alive). So a look that found the lock path naming the holder's own file, with a heartbeat
 * `mtime`, shows that nobody can take it before `mtime + ttl`: until half of that (a contender on
 * another host's clock may be up to half a ttl ahead), the lock is still the holder's without an
 * `lstat`. A look that finds the heartbeat already half a ttl old means the heartbeat lapsed (a
 * frozen or blocked process): a contender may have judged the lock stale meanwhile and be about to
 * take it, so this holder proves nothing by time again and looks every time, as before.
 */
export class LockProof {
  readonly #ttlMs: number;
  #until = 0;
  #lapsed = false;

  constructor(ttlMs: number) {
    this.#ttlMs = ttlMs;
  }

  /** The lock path named the holder's file, whose heartbeat was `mtimeMs` (NaN: not known). */
  seenOwn(mtimeMs: number): void {
    const now = Date.now();
    if (!(now - mtimeMs < this.#ttlMs / 2)) this.#lapsed = true;
    this.#until = this.#lapsed ? 0 : Math.min(mtimeMs, now) + this.#ttlMs / 2;
  }

  /** The lock path no longer named the holder's file, or the look failed. */
  lost(): void {
    this.#until = 0;
  }

  /** Whether the lock is still the holder's without a look. */
  holds(): boolean {
    return Date.now() < this.#until;
  }
}
