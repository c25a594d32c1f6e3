import type { KeelPlugin } from '@keel/spec';
import { PluginLoadError } from './plugin-error';
import { resolvePlugin } from './resolve-plugin';
import { pluginProblem } from './validate-plugin';

/** A `plugins` entry of the configuration: a module, with options for a plugin factory. */
export type PluginEntry = string | { module: string; options?: unknown };

/**
 * Loads the configured plugins in order. A plugin that is missing, fails to load, has the wrong
 * shape or `specificationVersion`, or repeats a name, a compaction provider id or a tool name
 * stops start-up with a `PluginLoadError` naming it and the problem.
 */
export async function loadPlugins(
  entries: readonly PluginEntry[],
  baseDir: string,
): Promise<KeelPlugin[]> {
  const plugins: KeelPlugin[] = [];
  const owners = {
    name: new Map<string, string>(),
    provider: new Map<string, string>(),
    tool: new Map<string, string>(),
  };
  for (const entry of entries) {
    const specifier = typeof entry === 'string' ? entry : entry.module;
    const url = resolvePlugin(specifier, baseDir);
    if (url === undefined) {
      throw new PluginLoadError({
        plugin: specifier,
        problem: `cannot be found (looked from ${baseDir})`,
      });
    }
    let value: unknown;
    try {
      const module = (await import(url)) as { default?: unknown };
      value = module.default;
      if (typeof value === 'function')
        value = await (value as (options: unknown) => unknown)(
          typeof entry === 'string' ? undefined : entry.options,
        );
    } catch (error) {
      throw new PluginLoadError({
        plugin: specifier,
        problem: `failed to load: ${(error as Error).message}`,
        cause: error,
      });
    }
    const problem = pluginProblem(value);
    if (problem !== undefined) throw new PluginLoadError({ plugin: specifier, problem });
    const plugin = value as KeelPlugin;
    claim(owners.name, plugin.name, specifier, 'a plugin named');
    for (const provider of plugin.compactionProviders ?? [])
      claim(owners.provider, provider.id, plugin.name, 'a compaction provider with id');
    for (const tool of plugin.tools ?? [])
      claim(owners.tool, tool.definition.name, plugin.name, 'a tool named');
    plugins.push(plugin);
  }
  return plugins;
}

function claim(owners: Map<string, string>, key: string, plugin: string, what: string): void {
  const owner = owners.get(key);
  if (owner !== undefined) {
    throw new PluginLoadError({
      plugin,
      problem: `registers ${what} "${key}", which "${owner}" already registered`,
    });
  }
  owners.set(key, plugin);
}
