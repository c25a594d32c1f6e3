#!/usr/bin/env node
import { readFile } from 'node:fs/promises';
import { createMockProvider } from './mock-provider';
import { mockProviderBanner } from './mock-provider-banner';
import type { MockBehavior, MockMatch, MockScriptEntry } from './mock-provider-types';
import {
  type MockProviderArgs,
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

/** The banner's lines for the optional modes that are on. */
function modesOf(args: MockProviderArgs): string[] {
  const modes: string[] = [];
  if (args.demo)
    modes.push('demo model: current_time and roll_dice tool calls when asked and offered');
  const { chaos } = args;
  if (chaos !== undefined) {
    const rates =
      chaos.rates === undefined
        ? 'default rates'
        : Object.entries(chaos.rates)
            .map(([fault, rate]) => `${fault}=${rate}`)
            .join(',');
    const match = chaos.match as MockMatch | undefined;
    const scope = [
      match?.model === undefined ? '' : ` model ${String(match.model)}`,
      match?.apiKey === undefined ? '' : ' one API key', // never print a key
    ].join('');
    modes.push(`chaos: seed ${chaos.seed}, ${rates}${scope === '' ? '' : `; only for${scope}`}`);
  }
  return modes;
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
    ...(args.chaos === undefined ? {} : { chaos: args.chaos }),
    ...(args.demo ? { demo: true } : {}),
  });
  process.stdout.write(`${mockProviderBanner(provider, modesOf(args))}\n`);
  await stopped;
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  await provider.close();
  if (args.chaos !== undefined) {
    process.stdout.write(
      `keel-mock-provider chaos stats: ${JSON.stringify(provider.chaosStats())}\n`,
    );
  }
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
