import type { HealthSnapshot } from '@keel/spec';
import { useEffect } from 'preact/hooks';
import type { BudgetState } from '../../src/compose/create-budgets';
import type { RatesSnapshot } from '../../src/stats/create-rate-window';
import { formatDuration } from './format';
import { useHubEvents, useJson, useNow, useRefresh } from './hooks';
import { RateChart } from './rate-chart';

/** Provider health, live: breakers per provider and model, cooldowns per profile, and rates. */
export function ProvidersView() {
  const [healthTick, pokeHealth] = useRefresh(300);
  const [ratesTick, pokeRates] = useRefresh(2000);
  useHubEvents((event) => {
    if (event.type === 'health') pokeHealth();
    if (
      event.type === 'attempt-start' ||
      event.type === 'attempt-error' ||
      event.type === 'decision'
    )
      pokeRates();
  });
  // Cooldowns end and breakers turn half-open as time passes, without an event.
  useEffect(() => {
    const health = setInterval(pokeHealth, 2000);
    const rates = setInterval(pokeRates, 5000);
    return () => {
      clearInterval(health);
      clearInterval(rates);
    };
  }, [pokeHealth, pokeRates]);
  const health = useJson<HealthSnapshot & { budgets?: BudgetState[] }>(
    '/v1/providers/health',
    healthTick,
  );
  const rates = useJson<RatesSnapshot>('/v1/stats/rates?minutes=15', ratesTick);
  const now = useNow(500);

  return (
    <section class="providers">
      <div class="toolbar">
        <h2>Providers</h2>
      </div>
      {health.error === undefined ? null : (
        <p class="problem" role="alert">
          Could not load provider health: {health.error.message}
        </p>
      )}
      <h3>Breakers (per provider and model)</h3>
      {health.data === undefined || health.data.breakers.length === 0 ? (
        <p class="muted">No breaker yet: a model gets one with its first request.</p>
      ) : (
        <table class="grid" data-breakers>
          <thead>
            <tr>
              <th>Provider</th>
              <th>Model</th>
              <th>State</th>
              <th>Open for</th>
              <th class="number">Failed probes</th>
            </tr>
          </thead>
          <tbody>
            {health.data.breakers.map((breaker) => (
              <tr
                key={`${breaker.providerId}/${breaker.model}`}
                data-breaker={`${breaker.providerId}/${breaker.model}`}
                data-state={breaker.state}
              >
                <td>{breaker.providerId}</td>
                <td>
                  <code>{breaker.model}</code>
                </td>
                <td>
                  <span class={`breaker breaker-${breaker.state}`}>{breaker.state}</span>
                </td>
                <td>
                  {breaker.openUntil === undefined
                    ? '–'
                    : formatDuration(Math.max(0, breaker.openUntil - now))}
                </td>
                <td class="number">{breaker.failedProbes}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h3>Cooldowns (per provider and profile)</h3>
      {health.data === undefined || health.data.cooldowns.length === 0 ? (
        <p class="muted" data-no-cooldowns>
          No profile is cooling.
        </p>
      ) : (
        <table class="grid" data-cooldowns>
          <thead>
            <tr>
              <th>Provider</th>
              <th>Profile</th>
              <th>Model</th>
              <th>Because</th>
              <th>Cools for</th>
            </tr>
          </thead>
          <tbody>
            {health.data.cooldowns.map((cooldown) => (
              <tr
                key={`${cooldown.providerId}/${cooldown.profileId}/${cooldown.model ?? ''}`}
                data-cooldown={`${cooldown.providerId}/${cooldown.profileId}`}
                data-kind={cooldown.kind}
              >
                <td>{cooldown.providerId}</td>
                <td>{cooldown.profileId}</td>
                <td>
                  {cooldown.model === undefined ? 'every model' : <code>{cooldown.model}</code>}
                </td>
                <td>{cooldown.kind}</td>
                <td>{formatDuration(Math.max(0, cooldown.until - now))}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h3>Budgets (per provider profile and model)</h3>
      {health.data?.budgets === undefined || health.data.budgets.length === 0 ? (
        <p class="muted" data-no-budgets>
          No provider budget is configured (<code>budgets</code> in the config).
        </p>
      ) : (
        <table class="grid" data-budgets>
          <thead>
            <tr>
              <th>Provider</th>
              <th>Profile</th>
              <th>Model</th>
              <th class="number">Requests left (rpm)</th>
              <th class="number">Tokens left (tpm)</th>
              <th class="number">Tokens left today (tpd)</th>
            </tr>
          </thead>
          <tbody>
            {health.data.budgets.map((budget) => (
              <tr
                key={`${budget.providerId}/${budget.model}#${budget.profileId}`}
                data-budget={`${budget.providerId}/${budget.model}#${budget.profileId}`}
              >
                <td>{budget.providerId}</td>
                <td>{budget.profileId}</td>
                <td>
                  <code>{budget.model}</code>
                </td>
                {(['rpm', 'tpm', 'tpd'] as const).map((limit) => (
                  <td class="number" key={limit} data-limit={limit}>
                    {budget.limits[limit] === undefined
                      ? '–'
                      : `${budget.remaining[limit] ?? 0} / ${budget.limits[limit]}`}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h3>Rates, last 15 minutes</h3>
      {rates.data === undefined ? (
        <p class="muted">
          {rates.error === undefined ? 'Loading…' : `Could not load rates: ${rates.error.message}`}
        </p>
      ) : (
        <>
          <div class="charts">
            <RateChart
              title="Requests"
              field="requests"
              buckets={rates.data.buckets}
              bucketMs={rates.data.bucketMs}
              colour="#2563eb"
            />
            <RateChart
              title="Errors"
              field="errors"
              buckets={rates.data.buckets}
              bucketMs={rates.data.bucketMs}
              colour="#dc2626"
            />
            <RateChart
              title="Fallbacks"
              field="fallbacks"
              buckets={rates.data.buckets}
              bucketMs={rates.data.bucketMs}
              colour="#d97706"
            />
          </div>
          {rates.data.providers.length === 0 ? null : (
            <table class="grid" data-provider-rates>
              <thead>
                <tr>
                  <th>Provider</th>
                  <th class="number">Requests</th>
                  <th class="number">Errors</th>
                  <th class="number">Fallbacks from</th>
                  <th>Errors by kind</th>
                </tr>
              </thead>
              <tbody>
                {rates.data.providers.map((provider) => (
                  <tr key={provider.providerId} data-provider-rate={provider.providerId}>
                    <td>{provider.providerId}</td>
                    <td class="number">{provider.requests}</td>
                    <td class="number">{provider.errors}</td>
                    <td class="number">{provider.fallbacks}</td>
                    <td>
                      {Object.entries(provider.errorKinds)
                        .map(([kind, count]) => `${kind} ${count}`)
                        .join(', ') || '–'}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
    </section>
  );
}
