import type { KeelPlugin } from '@keel/spec';

/**
 * Types a Keel plugin (the spec's `KeelPlugin` v1) where it is written, and returns it as it is.
 * Pass the plugin, or a function of the options a configuration gives it that returns one:
 * `export default definePlugin((options: { path: string }) => ({ … }))`.
 */
export function definePlugin<const Plugin extends KeelPlugin>(plugin: Plugin): Plugin;
export function definePlugin<Options, const Plugin extends KeelPlugin>(
  factory: (options: Options) => Plugin | Promise<Plugin>,
): (options: Options) => Plugin | Promise<Plugin>;
export function definePlugin(value: unknown): unknown {
  return value;
}
