// The `keel_key_*` metrics: each client key's admitted requests, refusals, reported tokens and
// cost, and its spend in the current UTC day and month (read at each scrape). Labelled only with
// configured key ids.
import { Counter, Gauge, type Registry } from 'prom-client';
import type { KeySpend } from './create-spend-ledger';

export function createKeyMetrics(
  registry: Registry | undefined,
  states: ReadonlyMap<string, unknown>,
  spent: (keyId: string) => Promise<KeySpend>,
) {
  if (registry === undefined || states.size === 0) return undefined;
  const registers = [registry];
  new Gauge({
    name: 'keel_key_spend_usd',
    help: 'What each client key spent in the current UTC day and month, in USD.',
    labelNames: ['key', 'period'],
    registers,
    async collect() {
      for (const key of states.keys()) {
        // A database that cannot answer leaves the last values (the scrape still answers).
        const spend = await spent(key).catch(() => undefined);
        if (spend === undefined) continue;
        this.set({ key, period: 'day' }, spend.day.usd);
        this.set({ key, period: 'month' }, spend.month.usd);
      }
    },
  });
  return {
    requests: new Counter({
      name: 'keel_key_requests_total',
      help: 'Model requests each client key made (admitted past its limits).',
      labelNames: ['key'],
      registers,
    }),
    rejections: new Counter({
      name: 'keel_key_rejections_total',
      help: 'Requests of each client key refused by its limits (rpm, tpm) or spend caps (budget).',
      labelNames: ['key', 'reason'],
      registers,
    }),
    tokens: new Counter({
      name: 'keel_key_tokens_total',
      help: 'Tokens the providers reported for each client key, by type (input, output).',
      labelNames: ['key', 'type'],
      registers,
    }),
    cost: new Counter({
      name: 'keel_key_cost_usd_total',
      help: "What each client key's reported tokens cost in USD, at the prices of models.settings.",
      labelNames: ['key'],
      registers,
    }),
  };
}
