import { randomInt } from 'node:crypto';
import type { ToolRunner } from '@keel/spec';
import { mockDemoTools } from '@keel/testing';

/** The demo tools a configuration can offer: `current_time` and `roll_dice`, really run. */
export type DemoToolName = 'current_time' | 'roll_dice';

/** Runs the harmless demo tools the embedded demo model knows how to call. */
export function createDemoToolRunner(names: readonly DemoToolName[]): ToolRunner {
  const definitions = mockDemoTools.filter((tool) => names.includes(tool.name as DemoToolName));
  return {
    definitions,
    async run(call) {
      switch (call.name) {
        case 'current_time':
          return { content: new Date().toISOString() };
        case 'roll_dice': {
          const sides = Number(call.input['sides'] ?? 6);
          if (!Number.isInteger(sides) || sides < 2 || sides > 1_000_000) {
            return { content: 'sides must be a whole number from 2 to 1000000', isError: true };
          }
          return { content: String(randomInt(1, sides + 1)) };
        }
        default:
          return { content: `unknown tool ${call.name}`, isError: true };
      }
    },
  };
}
