import { describe, it } from 'vitest';
import { storageDataChecks } from './storage-conformance-data-checks';
import type {
  SessionStorageConformanceOptions,
  SessionStorageUnderTest,
} from './storage-conformance-fixtures';
import { storageLeaseChecks } from './storage-conformance-lease-checks';
import type { StorageCheck } from './storage-conformance-support';
import { storageTurnClaimChecks } from './storage-conformance-turn-claim-checks';

/** Every storage check, in the order the kit registers them. */
export const sessionStorageChecks: readonly StorageCheck[] = [
  ...storageDataChecks,
  ...storageLeaseChecks,
];

/** The checks of the optional turn claims (`SessionStorage.turnClaims`). */
export const turnClaimChecks: readonly StorageCheck[] = storageTurnClaimChecks;

/**
 * Registers vitest tests that any `SessionStorage` (`@keel/spec`) should pass: round trip of
 * every entry type, the tail bound, state and compare, whole batches, inspection, listing,
 * exclusive leases with growing fencing tokens, refused writes (stale lease, changed state) that
 * write nothing, and abort signals. With `turnClaims: true`, also the turn claims across gateways
 * (one holder per session, growing tokens, expiry and takeover). `create` runs once per test and
 * must give a fresh, empty storage; `cleanup` runs after the test, pass or fail.
 */
export function describeSessionStorageConformance(
  name: string,
  create: () => Promise<SessionStorageUnderTest>,
  options: SessionStorageConformanceOptions = {},
): void {
  const context = {
    create,
    options: { contendedLeaseTimeoutMs: options.contendedLeaseTimeoutMs ?? 200 },
  };
  describe(`SessionStorage conformance: ${name}`, () => {
    const checks = options.turnClaims
      ? [...sessionStorageChecks, ...turnClaimChecks]
      : sessionStorageChecks;
    for (const check of checks) {
      it(check.name, { timeout: options.timeoutMs }, () => check.run(context));
    }
  });
}
