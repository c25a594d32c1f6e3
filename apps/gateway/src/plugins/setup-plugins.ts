import { type CompactionRegistry, createCompactionRegistry } from '@keel/compaction';
import { Counter } from 'prom-client';
import type { KeelConfig } from '../config/config-schema';
import { loadPlugins } from './load-plugins';
import { type PluginContributions, pluginContributions } from './plugin-contributions';
import { PluginLoadError } from './plugin-error';

export interface PluginSetup {
  contributions: PluginContributions;
  /** The compaction providers the plugins registered, by id. */
  registry: CompactionRegistry;
  /** `keel_plugin_errors_total`, for the gateway's registry. */
  errors: Counter;
  /** Logs and counts a plugin's failure at run time. */
  report(plugin: string, where: string, error: unknown): void;
}

/**
 * Loads the configured plugins, registers their compaction providers, and checks that every id in
 * `compaction.providers` is registered — all before anything else starts.
 */
export async function setupPlugins(
  config: Pick<KeelConfig, 'plugins' | 'compaction'>,
  options: {
    baseDir?: string;
    onPluginFailure?: (plugin: string, where: string, error: unknown) => void;
  },
): Promise<PluginSetup> {
  const plugins = await loadPlugins(config.plugins, options.baseDir ?? process.cwd());
  const errors = new Counter({
    name: 'keel_plugin_errors_total',
    help: 'Plugin failures at run time (isolated: the turn went on), by plugin and place.',
    labelNames: ['plugin', 'where'],
    registers: [],
  });
  const report = (plugin: string, where: string, error: unknown) => {
    errors.inc({ plugin, where });
    options.onPluginFailure?.(plugin, where, error);
  };
  const contributions = pluginContributions(plugins, report);
  const registry = createCompactionRegistry();
  for (const provider of contributions.compactionProviders) registry.register(provider);
  config.compaction.providers.forEach((id, index) => {
    if (registry.get(id) === undefined) {
      throw new PluginLoadError({
        plugin: id,
        problem: `compaction.providers.${index} names a compaction provider no loaded plugin registers`,
      });
    }
  });
  return { contributions, registry, errors, report };
}
