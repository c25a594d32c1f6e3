import { classifyError, createClassifier } from '@keel/error-classification';
import type { Classification } from '@keel/orchestrator';
import type {
  CompactionProvider,
  KeelPlugin,
  ToolCallResult,
  ToolRunner,
  TurnEvent,
  TurnHooks,
} from '@keel/spec';

/** Reports a plugin's failure at run time: logged and counted, never fatal to the turn. */
export type PluginFailureReporter = (plugin: string, where: string, error: unknown) => void;

/** What the loaded plugins add to a gateway, each piece isolated so a throwing plugin breaks nothing. */
export interface PluginContributions {
  compactionProviders: CompactionProvider[];
  /** The plugin that registered each compaction provider id. */
  providerOwners: Map<string, string>;
  classify: (error: unknown, options: { signal?: AbortSignal }) => Classification;
  /** Plugin tools joined to `base` (the demo tools), or `base` when no plugin offers a tool. */
  tools(base: ToolRunner | undefined): ToolRunner | undefined;
  hooks: TurnHooks[];
}

export function pluginContributions(
  plugins: readonly KeelPlugin[],
  report: PluginFailureReporter,
): PluginContributions {
  const providerOwners = new Map<string, string>();
  const compactionProviders = plugins.flatMap((plugin) =>
    (plugin.compactionProviders ?? []).map((provider) => {
      providerOwners.set(provider.id, plugin.name);
      return provider;
    }),
  );
  const rules = plugins.flatMap((plugin) =>
    (plugin.classifierRules ?? []).map((rule) => ({
      name: `${plugin.name}:${rule.name}`,
      match(error: unknown, context: { signal?: AbortSignal }) {
        try {
          return rule.match(error, context);
        } catch (failure) {
          report(plugin.name, 'classifier-rule', failure);
          return undefined;
        }
      },
    })),
  );
  const classifier = rules.length === 0 ? undefined : createClassifier({ rules });
  const hooks: TurnHooks[] = plugins.flatMap((plugin) => {
    const observe = plugin.onEvent?.bind(plugin);
    const onEvent =
      observe === undefined
        ? undefined
        : (event: TurnEvent) => {
            try {
              observe(event);
            } catch (error) {
              report(plugin.name, 'onEvent', error);
            }
          };
    return [{ ...plugin.hooks, ...(onEvent === undefined ? {} : { onEvent }) }];
  });
  const pluginTools = plugins.flatMap((plugin) =>
    (plugin.tools ?? []).map((tool) => ({ plugin: plugin.name, tool })),
  );

  return {
    compactionProviders,
    providerOwners,
    classify: (error, options) =>
      (classifier === undefined
        ? classifyError(error, options)
        : classifier.classify(error, options)) as Classification,
    tools(base) {
      if (pluginTools.length === 0) return base;
      const byName = new Map(pluginTools.map((entry) => [entry.tool.definition.name, entry]));
      for (const definition of base?.definitions ?? []) {
        if (byName.has(definition.name)) {
          throw new Error(
            `Plugin "${byName.get(definition.name)?.plugin}" offers a tool named "${definition.name}", which is built in`,
          );
        }
      }
      return {
        definitions: [
          ...(base?.definitions ?? []),
          ...pluginTools.map((entry) => entry.tool.definition),
        ],
        async run(call, context): Promise<ToolCallResult> {
          const entry = byName.get(call.name);
          if (entry === undefined) {
            if (base === undefined)
              return { content: `There is no tool named "${call.name}".`, isError: true };
            return base.run(call, context);
          }
          try {
            return await entry.tool.run(call, context);
          } catch (error) {
            report(entry.plugin, `tool:${call.name}`, error);
            throw error;
          }
        },
      };
    },
    hooks,
  };
}
