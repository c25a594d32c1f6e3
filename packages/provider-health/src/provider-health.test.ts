import { describeProviderHealthConformance } from '@keel/testing/vitest';
import { describe, expect, it } from 'vitest';
import { createFakeClock } from '../test/fake-clock';
import { createProviderHealth } from './provider-health';

// The port's rules (`@keel/testing`'s kit, which the PostgreSQL health passes too).
describeProviderHealthConformance('in-process', (options) => createProviderHealth(options));

describe('createProviderHealth', () => {
  it('lists a breaker a permit asked about, before any report', async () => {
    const health = createProviderHealth({ clock: createFakeClock() });
    await health.permit({ providerId: 'p', profileId: 'k', model: 'm' });
    expect((await health.snapshot()).breakers).toEqual([
      { providerId: 'p', model: 'm', state: 'closed', failedProbes: 0 },
    ]);
  });
});
