/**
 * The rules every package README and the root README's "Use one package" section follow (issue 8,
 * "A newcomer's first five minutes"): a quick start first, install lines that name every package
 * an example imports, one install style, and no links a tarball cannot resolve.
 */

export interface Section {
  heading: string;
  body: string;
}

/** The `## ` (or `level`) sections of a markdown text, in order; text before the first is dropped. */
export function sections(markdown: string, level = 2): Section[] {
  const marker = `${'#'.repeat(level)} `;
  const parts = markdown.split(new RegExp(`^${marker}`, 'm')).slice(1);
  return parts.map((part) => {
    const newline = part.indexOf('\n');
    const heading = (newline === -1 ? part : part.slice(0, newline)).trim();
    const body = newline === -1 ? '' : part.slice(newline + 1);
    return { heading, body: body.split(/^#{1,2} /m)[0] ?? '' };
  });
}

/** The contents of each fenced block of `language`. */
export function codeBlocks(markdown: string, language: string): string[] {
  return [...markdown.matchAll(new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\`$`, 'gm'))].map(
    (match) => match[1] as string,
  );
}

/** The packages a block imports (bare specifiers, subpaths dropped; `node:` and relative ones left out). */
export function importedPackages(code: string): string[] {
  const specifiers = [...code.matchAll(/\bfrom '([^']+)'|\bimport\('([^']+)'\)/g)].map(
    (match) => (match[1] ?? match[2]) as string,
  );
  return [
    ...new Set(
      specifiers
        .filter((specifier) => !specifier.startsWith('.') && !specifier.startsWith('node:'))
        .map((specifier) =>
          specifier
            .split('/')
            .slice(0, specifier.startsWith('@') ? 2 : 1)
            .join('/'),
        ),
    ),
  ].sort();
}

/** Every package an `npm install` line names (in a shell block or inline code), flags and versions dropped. */
export function installedByReadme(markdown: string): string[] {
  const names = [...markdown.matchAll(/npm install ([^`\n#]*)/g)].flatMap((match) =>
    (match[1] as string)
      .trim()
      .split(/\s+/)
      .filter((word) => word !== '' && !word.startsWith('-'))
      .map((word) => word.replace(/(.)@[^@/]*$/, '$1')),
  );
  return [...new Set(names)].sort();
}

/** Lines of code in a block that are not imports, comments or blank: what "ten lines" counts. */
export function codeLines(code: string): number {
  return code
    .split('\n')
    .filter((line) => line.trim() !== '' && !/^\s*(import\b|\/\/)/.test(line))
    .filter((line) => !/^\s*from '/.test(line)).length;
}

/** Install style: `npm install` only (no `npm i`, `pnpm add`, `yarn add`, `bun add`). */
export function installStyleProblems(markdown: string): string[] {
  return [
    ...markdown.matchAll(/\b(npm i|npm add|pnpm (?:add|install|i)|yarn add|bun add)\b [^\n`]*/g),
  ].map((match) => `uses "${match[0]}" instead of npm install`);
}

/** Imports of the `ts` blocks that no `npm install` line of `markdown` names. */
export function unnamedImports(
  markdown: string,
  blocks: readonly string[] = codeBlocks(markdown, 'ts'),
): string[] {
  const named = new Set(installedByReadme(markdown));
  const missing = blocks.flatMap(importedPackages).filter((name) => !named.has(name));
  return [...new Set(missing)].sort();
}

/**
 * Relative links (and images) whose target is not a file the package ships (`files`): on the
 * registry they would point nowhere.
 */
export function unshippedLinks(markdown: string, files: readonly string[]): string[] {
  const targets = [...markdown.matchAll(/!?\[[^\]]*\]\(([^)\s]+)[^)]*\)/g)].map(
    (match) => match[1] as string,
  );
  return targets
    .filter((target) => !/^(?:[a-z][a-z0-9+.-]*:|#|\/\/)/i.test(target))
    .filter((target) => {
      const path = target.split('#')[0]?.replace(/^\.\//, '') ?? '';
      return !files.some((entry) => path === entry || path.startsWith(`${entry}/`));
    });
}

/**
 * A package README opens (its first `##` section) with a quick start: an `npm install` that names
 * the package and a `ts` block of at most `maxLines` lines besides imports and comments.
 */
export function quickStartProblems(markdown: string, packageName: string, maxLines = 10): string[] {
  const first = sections(markdown)[0];
  if (first?.heading !== 'Quick start')
    return [`the first section is "${first?.heading}", not "Quick start"`];
  const problems: string[] = [];
  if (!installedByReadme(first.body).includes(packageName)) {
    problems.push(`the quick start's npm install does not name ${packageName}`);
  }
  const [code, ...more] = codeBlocks(first.body, 'ts');
  if (code === undefined || more.length > 0)
    problems.push('the quick start has not exactly one ts block');
  else if (codeLines(code) > maxLines) {
    problems.push(`the quick start has ${codeLines(code)} lines of code (at most ${maxLines})`);
  }
  if (code !== undefined && !importedPackages(code).includes(packageName)) {
    problems.push(`the quick start does not import ${packageName}`);
  }
  return problems;
}
