/** The bodies of the Markdown's fenced blocks in `language` (default ```ts), in order. */
export function fencedBlocks(markdown: string, language = 'ts'): string[] {
  const fence = new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``, 'g');
  return [...markdown.matchAll(fence)].map((match) => match[1] ?? '');
}
