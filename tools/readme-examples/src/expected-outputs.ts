/** The values of a block's `// => value` comments, in order. */
export function expectedOutputs(code: string): string[] {
  return [...code.matchAll(/\/\/ => (.*)$/gm)].map((match) => (match[1] ?? '').trim());
}
