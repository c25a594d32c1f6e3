import type { KeelPlugin } from '@keel/spec';
import {
  createExtractiveProvider,
  type ExtractiveProviderOptions,
} from './create-extractive-provider';

/**
 * The extractive provider as a Keel plugin (`KeelPlugin` v1, the package's default export): list
 * this package under the gateway's `plugins` and name its provider id (`extractive` by default)
 * in `compaction.providers`. Its options are the provider's.
 */
export function extractivePlugin(options: ExtractiveProviderOptions = {}): KeelPlugin {
  return {
    specificationVersion: 'v1',
    name: 'compaction-provider-extractive',
    compactionProviders: [createExtractiveProvider(options)],
  };
}
