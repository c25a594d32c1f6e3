// Where each key's spend in the current UTC day and month is kept: a gateway's own file (the
// spend ledger in memory, saved as a snapshot), or PostgreSQL rows every gateway adds to, so a cap
// holds across the cluster instead of once per gateway.
import type { PostgresKeyRecords } from '@keel/session-store-postgres';
import { createSpendLedger, type KeySpend, type SpendPeriod } from './create-spend-ledger';
import { createSpendFileWriter, readSpendFile } from './spend-file';

export interface KeySpendStore {
  /** Adds a call's cost (its write may finish later; a failure goes to `onError`). */
  add(keyId: string, usd: number): void;
  /** The key's spend in the current day and month. */
  spent(keyId: string): Promise<KeySpend>;
  /** Resolves once every add so far is stored. */
  flush(): Promise<void>;
}

/** The first cap the spend has reached, if any. */
export function capReachedIn(
  spend: KeySpend,
  caps: { day?: number; month?: number },
): SpendPeriod | undefined {
  if (caps.day !== undefined && spend.day.usd >= caps.day) return 'day';
  if (caps.month !== undefined && spend.month.usd >= caps.month) return 'month';
  return undefined;
}

/** Spend in memory, saved to `file` (when given) after every change and read back at start-up. */
export async function openFileSpendStore(options: {
  file: string | undefined;
  now: () => number;
  onError: (error: unknown) => void;
}): Promise<KeySpendStore> {
  const { file, now } = options;
  const initial = file === undefined ? undefined : await readSpendFile(file);
  let save: () => void = () => {};
  const ledger = createSpendLedger({
    now,
    ...(initial === undefined ? {} : { initial }),
    onChange: () => save(),
  });
  const writer =
    file === undefined ? undefined : createSpendFileWriter(file, ledger.snapshot, options.onError);
  if (writer !== undefined) save = writer.save;
  return {
    add: (keyId, usd) => ledger.add(keyId, usd),
    spent: (keyId) => Promise.resolve(ledger.spent(keyId)),
    flush: () => writer?.flush() ?? Promise.resolve(),
  };
}

/**
 * Spend in the database's rows, per key and UTC day and month by the database's clock (as the
 * budget ledger's windows are), so every gateway agrees when a period ends.
 */
export function openPostgresSpendStore(options: {
  records: Pick<PostgresKeyRecords, 'addCurrentSpend' | 'currentSpend'>;
  onError: (error: unknown) => void;
}): KeySpendStore {
  const { records } = options;
  const writing = new Set<Promise<void>>();
  return {
    add(keyId, usd) {
      if (!(usd > 0)) return;
      const write = records.addCurrentSpend(keyId, usd).catch(options.onError);
      writing.add(write);
      void write.finally(() => writing.delete(write));
    },
    spent: (keyId) => records.currentSpend(keyId),
    flush: async () => {
      await Promise.all(writing);
    },
  };
}
