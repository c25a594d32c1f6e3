// Where each key's spend in the current UTC day and month is kept: a gateway's own file (the
// spend ledger in memory, saved as a snapshot), or PostgreSQL rows every gateway adds to, so a cap
// holds across the cluster instead of once per gateway.
import type { PostgresKeyRecords } from '@keel/session-store-postgres';
import {
  createSpendLedger,
  type KeySpend,
  periodOf,
  type SpendPeriod,
} from './create-spend-ledger';
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

/** Spend in the database's rows, per key and UTC day and month of `now`. */
export function openPostgresSpendStore(options: {
  records: Pick<PostgresKeyRecords, 'addSpend' | 'spendOf'>;
  now: () => number;
  onError: (error: unknown) => void;
}): KeySpendStore {
  const { records, now } = options;
  const writing = new Set<Promise<void>>();
  const periods = () => {
    const at = now();
    return { day: periodOf('day', at), month: periodOf('month', at) };
  };
  return {
    add(keyId, usd) {
      if (!(usd > 0)) return;
      const { day, month } = periods();
      const write = records.addSpend(keyId, [day, month], usd).catch(options.onError);
      writing.add(write);
      void write.finally(() => writing.delete(write));
    },
    async spent(keyId) {
      const { day, month } = periods();
      const totals = await records.spendOf(keyId, [day, month]);
      return {
        day: { period: day, usd: totals[day] ?? 0 },
        month: { period: month, usd: totals[month] ?? 0 },
      };
    },
    flush: async () => {
      await Promise.all(writing);
    },
  };
}
