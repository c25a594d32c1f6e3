/** The names that `text` does not mention as a whole word. */
export function unmentioned(names: readonly string[], text: string): string[] {
  return names.filter((name) => !new RegExp(`\\b${name}\\b`).test(text));
}
