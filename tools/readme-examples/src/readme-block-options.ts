/** Where a README block's scratch file goes and which of its imports point at the source. */
export interface ReadmeBlockOptions {
  /** The package folder; scratch files go to its git-ignored `.readme-examples/`. */
  packageDir: string;
  /**
   * Module specifier → path relative to `packageDir`, e.g. `{ '@keel/transport': 'src/index' }`.
   * A specifier ending in `/` maps a prefix: `{ './': 'src/' }` turns `from './x'` into the
   * source's `x`.
   */
  imports: Readonly<Record<string, string>>;
}
