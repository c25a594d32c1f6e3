import type { KeelPlugin } from '@keel/spec';

/** What is wrong with a value that should be a `KeelPlugin` v1, or `undefined` when nothing is. */
export function pluginProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null)
    return 'its module does not export a plugin object (or a function returning one) as default';
  const plugin = value as Record<string, unknown>;
  if (plugin['specificationVersion'] !== 'v1') {
    return `specificationVersion must be "v1", not ${JSON.stringify(plugin['specificationVersion'])}`;
  }
  if (typeof plugin['name'] !== 'string' || plugin['name'].trim() === '') return 'it has no name';
  for (const key of ['compactionProviders', 'classifierRules', 'tools'] as const) {
    if (plugin[key] !== undefined && !Array.isArray(plugin[key])) return `${key} must be an array`;
  }
  for (const [index, provider] of ((plugin['compactionProviders'] ?? []) as unknown[]).entries()) {
    const p = provider as Record<string, unknown> | null;
    if (
      p?.['specificationVersion'] !== 'v1' ||
      typeof p['id'] !== 'string' ||
      typeof p['summarize'] !== 'function'
    ) {
      return `compactionProviders[${index}] is not a CompactionProvider v1 (specificationVersion "v1", id, summarize)`;
    }
  }
  for (const [index, rule] of ((plugin['classifierRules'] ?? []) as unknown[]).entries()) {
    const r = rule as Record<string, unknown> | null;
    if (typeof r?.['name'] !== 'string' || typeof r['match'] !== 'function') {
      return `classifierRules[${index}] needs a name and a match function`;
    }
  }
  for (const [index, tool] of ((plugin['tools'] ?? []) as unknown[]).entries()) {
    const t = tool as { definition?: { name?: unknown }; run?: unknown } | null;
    if (typeof t?.definition?.name !== 'string' || typeof t.run !== 'function') {
      return `tools[${index}] needs a definition with a name and a run function`;
    }
  }
  if (plugin['onEvent'] !== undefined && typeof plugin['onEvent'] !== 'function')
    return 'onEvent must be a function';
  if (
    plugin['hooks'] !== undefined &&
    (typeof plugin['hooks'] !== 'object' || plugin['hooks'] === null)
  ) {
    return 'hooks must be an object';
  }
  return undefined;
}

export function isKeelPlugin(value: unknown): value is KeelPlugin {
  return pluginProblem(value) === undefined;
}
