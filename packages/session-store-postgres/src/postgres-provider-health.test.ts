/**
 * The provider-health conformance kit against the rows in PostgreSQL. Time is the kit's fake clock
 * handed to the store (the database's clock cannot be moved); `provider-health-gateways.test.ts`
 * runs on the database's.
 */

import { useTestDatabase } from '@keel/postgres-test-server';
import { describeProviderHealthConformance } from '@keel/testing/vitest';
import {
  createPostgresProviderHealth,
  type PostgresProviderHealthOptions,
} from './postgres-provider-health';

const database = useTestDatabase();
let schemas = 0;

type HealthOptions = Omit<PostgresProviderHealthOptions, 'pool' | 'connectionString'>;

/** Health over a schema of its own (every test starts from no rows). */
function healthOn(options: HealthOptions) {
  schemas += 1;
  return createPostgresProviderHealth({
    pool: database.pool({ max: 2 }),
    schema: `health_${schemas}`,
    ...options,
  });
}

// The port's rules (`@keel/testing`'s kit, which the in-process health passes too), on rows.
describeProviderHealthConformance('postgres', (options) => healthOn(options));
