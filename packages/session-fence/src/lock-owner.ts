import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { errorCode } from './safe-file';

/** Who holds a lock, as written in the lock file. */
export interface LockOwner {
  pid: number;
  host: string;
  /**
   * `/proc/sys/kernel/random/boot_id` of the holder's kernel, where there is one. A pid means
   * something only within one boot.
   */
  bootId?: string;
  /**
   * The holder's pid namespace (`readlink /proc/self/ns/pid`, e.g. `pid:[4026531836]`), where
   * there is one. Two containers may share a host name and a kernel, but never a pid namespace
   * unless they share their processes too.
   */
  pidNamespace?: string;
  token: string;
  acquiredAt: string;
  /** How long the holder's heartbeat may pause before the lock is stale; contenders honour it. */
  ttlMs?: number;
}

/** Where this process runs: host name, boot and pid namespace, read once. */
export interface ProcessIdentity {
  host: string;
  bootId: string | undefined;
  pidNamespace: string | undefined;
}

let identity: ProcessIdentity | undefined;

/** This process's identity (Linux: boot id and pid namespace from /proc; elsewhere undefined). */
export function processIdentity(): ProcessIdentity {
  identity ??= {
    host: hostname(),
    bootId: readOrUndefined(() => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()),
    pidNamespace: readOrUndefined(() => readlinkSync('/proc/self/ns/pid')),
  };
  return identity;
}

function readOrUndefined(read: () => string): string | undefined {
  try {
    const value = read();
    return value === '' ? undefined : value;
  } catch {
    return undefined;
  }
}

/**
 * True when `owner`'s pid can be looked up here: same host name, same boot and same pid
 * namespace. Only then does a dead pid prove the lock abandoned; otherwise (another container
 * with the same host name, a lock from before a reboot, a holder that did not record its boot)
 * only the heartbeat's age decides.
 */
export function sharesProcessTable(owner: LockOwner, self: ProcessIdentity): boolean {
  return (
    owner.host === self.host &&
    owner.bootId === self.bootId &&
    owner.pidNamespace === self.pidNamespace
  );
}

/** Parses a lock file's content; `undefined` for anything that is not a whole owner record. */
export function parseOwner(text: string): LockOwner | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Record<string, unknown>;
  const { pid, host, token } = record;
  if (typeof pid !== 'number' || typeof host !== 'string' || typeof token !== 'string')
    return undefined;
  // pid 0 and negative pids name process groups for kill(); they cannot be a holder.
  if (!Number.isSafeInteger(pid) || pid <= 0) return undefined;
  const owner: LockOwner = {
    pid,
    host,
    token,
    acquiredAt: typeof record['acquiredAt'] === 'string' ? record['acquiredAt'] : '',
  };
  if (typeof record['bootId'] === 'string') owner.bootId = record['bootId'];
  if (typeof record['pidNamespace'] === 'string') owner.pidNamespace = record['pidNamespace'];
  if (typeof record['ttlMs'] === 'number' && record['ttlMs'] > 0) owner.ttlMs = record['ttlMs'];
  return owner;
}

/** `process.kill(pid, 0)`: ESRCH means no such process; EPERM means it exists. */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errorCode(error) === 'EPERM';
  }
}
