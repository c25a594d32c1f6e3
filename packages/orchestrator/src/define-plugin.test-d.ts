/** Type test: definePlugin keeps the literal and checks the shape against the spec. */
import type { KeelPlugin } from '@keel/spec';
import { definePlugin } from './define-plugin';

export const plain = definePlugin({
  specificationVersion: 'v1',
  name: 'plain',
}) satisfies KeelPlugin;
export const named: 'plain' = plain.name;
export const factory = definePlugin((options: { prefix: string }) => ({
  specificationVersion: 'v1' as const,
  name: `${options.prefix}-plugin`,
  onEvent() {},
}));
// @ts-expect-error a plugin needs specificationVersion 'v1'
export const wrong = definePlugin({ specificationVersion: 'v2', name: 'x' });
