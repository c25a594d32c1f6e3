import { describe, it } from 'vitest';
import { storageDataChecks } from './storage-conformance-data-checks';
import type {
  SessionStorageConformanceOptions,
  SessionStorageUnderTest,
} from './storage-conformance-fixtures';
import { storageLeaseChecks } from './storage-conformance-lease-checks';
import type { StorageCheck } from './storage-conformance-support';

/** Every storage check, in the order the kit registers them. */
export const sessionStorageChecks: readonly StorageCheck[] = [
  ...storageDataChecks,
  ...storageLeaseChecks,
];

/**
 * Registers vitest tests that any `SessionStorage` (`@keel/spec`) should pass: round trip of
 * every entry type, the tail bound, state and compare, whole batches, inspection, listing,
 * exclusive leases with growing fencing tokens, refused writes (stale lease, changed state) that
 * write nothing, and abort signals. `create` runs once per test and must give a fresh, empty
 * storage; `cleanup` runs after the test, pass or fail.
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
    for (const check of sessionStorageChecks) {
      it(check.name, { timeout: options.timeoutMs }, () => check.run(context));
    }
  });
}
