import type { KeyUsage } from '../../src/keys/create-keyring';
import { useHubEvents, useJson, useRefresh } from './hooks';

/**
 * The client keys (`GET /v1/keys`): per key its requests and refusals, tokens, cost, what it
 * spent this UTC day and month against its caps, and what is left of `rpm` and `tpm` this minute.
 * An admin sees every key; a key sees itself.
 */
export function KeysView() {
  const [tick, poke] = useRefresh(2000);
  useHubEvents((event) => {
    if (event.type === 'turn-end') poke();
  });
  const list = useJson<{ keys: KeyUsage[] }>('/v1/keys', tick);
  const keys = list.data?.keys ?? [];

  return (
    <section class="keys">
      <div class="toolbar">
        <h2>Keys</h2>
        <span class="facts">client keys: usage since start, spend this UTC day and month</span>
      </div>
      {list.error === undefined ? null : (
        <p class="problem" role="alert">
          Could not load the keys: {list.error.message}
        </p>
      )}
      {list.data !== undefined && keys.length === 0 ? (
        <p class="muted" data-empty>
          No client keys configured (<code>keys</code> in keel.config.json).
        </p>
      ) : (
        <table class="grid" data-keys>
          <thead>
            <tr>
              <th>Key</th>
              <th class="number">Requests</th>
              <th class="number">Refused rpm / tpm / budget</th>
              <th class="number">Tokens in / out</th>
              <th class="number">Cost</th>
              <th class="number">Today</th>
              <th class="number">This month</th>
              <th class="number">Left this minute</th>
            </tr>
          </thead>
          <tbody>
            {keys.map((usage) => (
              <KeyRow key={usage.key} usage={usage} />
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function KeyRow({ usage }: { usage: KeyUsage }) {
  const { limits, spend, remaining, rejected } = usage;
  const capped = (spent: number, cap: number | undefined) =>
    `$${spent.toFixed(4)}${cap === undefined ? '' : ` / $${cap}`}`;
  const left = (value: number | undefined, limit: number | undefined, unit: string) =>
    limit === undefined ? '' : `${value ?? limit} / ${limit} ${unit}`;
  return (
    <tr data-key-id={usage.key}>
      <td>
        <code>{usage.key}</code>
      </td>
      <td class="number" data-key-requests>
        {usage.requests}
      </td>
      <td class="number" data-key-rejected>
        {rejected.rpm} / {rejected.tpm} / {rejected.budget}
      </td>
      <td class="number">
        {usage.tokens.input} / {usage.tokens.output}
      </td>
      <td class="number">${usage.costUsd.toFixed(6)}</td>
      <td class="number" data-key-day>
        {capped(spend.day.usd, limits.spendCapUsd?.day)}
      </td>
      <td class="number" data-key-month>
        {capped(spend.month.usd, limits.spendCapUsd?.month)}
      </td>
      <td class="number" title="left this sliding minute: requests (of rpm), tokens (of tpm)">
        {[left(remaining.rpm, limits.rpm, 'req'), left(remaining.tpm, limits.tpm, 'tok')]
          .filter((part) => part !== '')
          .join(', ') || '–'}
      </td>
    </tr>
  );
}
