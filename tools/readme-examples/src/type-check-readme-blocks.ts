import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ReadmeBlockOptions } from './readme-block-options';
import { readmeScratchFile } from './readme-scratch-file';
import { rewriteReadmeBlock } from './rewrite-readme-block';

/**
 * Type-checks the blocks (imports rewritten, scratch files `typed-<index>.ts`) with the package's
 * `tsconfig.json` and returns one `file:line: message` per problem in them; `[]` when they pass.
 */
export async function typeCheckReadmeBlocks(
  blocks: readonly string[],
  options: ReadmeBlockOptions,
): Promise<string[]> {
  const { default: ts } = await import('typescript');
  const files = blocks.map((code, index) => {
    const file = readmeScratchFile(options.packageDir, `typed-${index}`);
    writeFileSync(file, rewriteReadmeBlock(code, options));
    return file;
  });
  const config = ts.readConfigFile(join(options.packageDir, 'tsconfig.json'), ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, options.packageDir);
  const program = ts.createProgram(files, { ...parsed.options, noEmit: true });
  return ts
    .getPreEmitDiagnostics(program)
    .filter(
      (diagnostic) => diagnostic.file !== undefined && files.includes(diagnostic.file.fileName),
    )
    .map((diagnostic) => {
      const where = diagnostic.file?.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
      const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
      return `${diagnostic.file?.fileName}:${(where?.line ?? 0) + 1}: ${message}`;
    });
}
