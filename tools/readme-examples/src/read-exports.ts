/** A name that an `index.ts` re-exports with `export { … }` or `export type { … }`. */
export interface ExportedName {
  name: string;
  /** `export type { … }`. */
  type: boolean;
  /** The module it is re-exported from (`'./classify-error'`), if any. */
  from: string | undefined;
}

/** The names listed in the source's top-level `export { … }` and `export type { … }` lines. */
export function readExports(source: string): ExportedName[] {
  const pattern = /^export (type )?\{([^}]*)\}(?: from '([^']+)')?/gm;
  return [...source.matchAll(pattern)].flatMap((match) =>
    (match[2] ?? '')
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean)
      .map((name) => ({ name, type: match[1] !== undefined, from: match[3] })),
  );
}
