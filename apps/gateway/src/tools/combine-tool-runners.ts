import type { ToolRunner } from '@keel/spec';

/**
 * One runner over several (the built-in demo tools, the MCP servers' tools): every definition
 * offered, each call run by the runner that defines its name. Names never collide: MCP tools
 * are `server__tool`, built-in ones have no `__`.
 */
export function combineToolRunners(
  runners: ReadonlyArray<ToolRunner | undefined>,
): ToolRunner | undefined {
  const present = runners.filter((runner): runner is ToolRunner => runner !== undefined);
  if (present.length <= 1) return present[0];
  const byName = new Map<string, ToolRunner>();
  for (const runner of present) {
    for (const definition of runner.definitions) byName.set(definition.name, runner);
  }
  return {
    definitions: present.flatMap((runner) => runner.definitions),
    async run(call, context) {
      const runner = byName.get(call.name);
      if (runner === undefined) {
        return { content: `There is no tool named "${call.name}".`, isError: true };
      }
      return runner.run(call, context);
    },
  };
}
