#!/usr/bin/env node
import { readFile } from 'node:fs/promises';
import { createMockProvider } from './mock-provider';
import { mockProviderBanner } from './mock-provider-banner';
import type { MockBehavior, MockScriptEntry } from './mock-provider-types';
import {
  MockProviderArgsError,
  mockProviderUsage,
  parseMockProviderArgs,
} from './parse-mock-provider-args';
import { MockScriptError, parseMockScript } from './parse-mock-script';

async function loadScript(path: string): Promise<Array<MockScriptEntry | MockBehavior>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new MockScriptError(`cannot read script ${path}: ${(error as Error).message}`);
  }
  return parseMockScript(text);
}

async function main(argv: readonly string[]): Promise<number> {
  const args = parseMockProviderArgs(argv);
  if (args.help) {
    process.stdout.write(`${mockProviderUsage}\n`);
    return 0;
  }
  const script = args.scriptPath === undefined ? [] : await loadScript(args.scriptPath);
  // Listen for signals before the URL line goes out, so a caller may stop us right after it.
  let signalled: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => {
    signalled = resolve;
  });
  const onSignal = () => signalled();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const provider = await createMockProvider({
    port: args.port,
    script,
    ...(args.requireApiKey === undefined ? {} : { requireApiKey: args.requireApiKey }),
  });
  process.stdout.write(`${mockProviderBanner(provider)}\n`);
  await stopped;
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  await provider.close();
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof MockProviderArgsError) {
      process.stderr.write(`keel-mock-provider: ${error.message}\n\n${mockProviderUsage}\n`);
      process.exitCode = 2;
      return;
    }
    if (error instanceof MockScriptError) {
      process.stderr.write(`keel-mock-provider: ${error.message}\n`);
      process.exitCode = 2;
      return;
    }
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`keel-mock-provider: ${message}\n`);
    process.exitCode = 1;
  },
);
