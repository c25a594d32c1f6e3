// The transports load their SDK on the first call, so a missing package would surface only at a
// turn, as `model_not_found` followed by a fallback. The gateway loads every SDK its providers
// need, and finds every claude-cli command, before it starts anything.
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import type {
  AnthropicMessagesTransportOptions,
  OpenAIChatTransportOptions,
} from '@keel/transport';
import type { ProviderConfig } from '../config/config-schema';
import { type ProviderProblem, ProviderSetupError } from './provider-setup-error';

type OpenAISdk = Awaited<ReturnType<NonNullable<OpenAIChatTransportOptions['loadSdk']>>>;
type AnthropicSdk = Awaited<ReturnType<NonNullable<AnthropicMessagesTransportOptions['loadSdk']>>>;

/** The SDK modules loaded for the configured providers, handed to their transports. */
export interface ProviderSdks {
  openai?: OpenAISdk;
  anthropic?: AnthropicSdk;
}

/** A dynamic `import()` from the gateway's own location, as a deployment resolves it. */
const importPackage = (name: 'openai' | '@anthropic-ai/sdk'): Promise<unknown> =>
  name === 'openai' ? import('openai') : import('@anthropic-ai/sdk');

/** The package each provider api needs (the demo model speaks Anthropic Messages). */
function sdkOf(provider: ProviderConfig): 'openai' | '@anthropic-ai/sdk' | undefined {
  switch (provider.api) {
    case 'openai-chat':
    case 'openai-responses':
      return 'openai';
    case 'anthropic-messages':
    case 'demo':
      return '@anthropic-ai/sdk';
    case 'claude-cli':
      return undefined;
    default: {
      const unexpected: never = provider;
      throw new Error(`Unknown provider api ${JSON.stringify(unexpected)}`);
    }
  }
}

/**
 * Loads the SDK of every configured provider and checks that every claude-cli command can be
 * run. Throws `ProviderSetupError` naming every provider that cannot work.
 */
export async function prepareProviders(
  providers: readonly ProviderConfig[],
): Promise<ProviderSdks> {
  const problems: ProviderProblem[] = [];
  const loaded = new Map<string, Promise<{ module?: unknown; error?: unknown }>>();
  const sdks: ProviderSdks = {};
  for (const provider of providers) {
    const name = sdkOf(provider);
    if (name === undefined) {
      if (provider.api === 'claude-cli') {
        const problem = await checkCommand(provider.command, provider.cwd, provider.env);
        if (problem !== undefined) problems.push({ providerId: provider.id, message: problem });
      }
      continue;
    }
    let loading = loaded.get(name);
    if (loading === undefined) {
      loading = importPackage(name).then(
        (module) => ({ module }),
        (error: unknown) => ({ error }),
      );
      loaded.set(name, loading);
    }
    const result = await loading;
    if (result.error !== undefined) {
      const code = (result.error as { code?: unknown }).code;
      problems.push({
        providerId: provider.id,
        message:
          code === 'ERR_MODULE_NOT_FOUND'
            ? `api "${provider.api}" needs the package "${name}", which is not installed (npm install ${name})`
            : `api "${provider.api}" needs the package "${name}", which could not be loaded (${typeof code === 'string' ? code : 'load error'}); reinstall it`,
      });
    } else if (name === 'openai') {
      sdks.openai = result.module as OpenAISdk;
    } else {
      sdks.anthropic = result.module as AnthropicSdk;
    }
  }
  if (problems.length > 0) throw new ProviderSetupError({ problems });
  return sdks;
}

/** Why `command` cannot be run (as `spawn` would look it up), or `undefined` when it can. */
async function checkCommand(
  command: string,
  cwd: string | undefined,
  providerEnv: Readonly<Record<string, string>> | undefined,
): Promise<string | undefined> {
  const executable = async (path: string) =>
    (await stat(path).then(
      (found) => found.isFile(),
      () => false,
    )) &&
    access(path, constants.X_OK).then(
      () => true,
      () => false,
    );
  if (command.includes('/') || isAbsolute(command)) {
    const path = resolve(cwd ?? process.cwd(), command);
    return (await executable(path))
      ? undefined
      : `the command "${command}" is not an executable file`;
  }
  const searchPath = providerEnv?.['PATH'] ?? process.env['PATH'] ?? '';
  for (const folder of searchPath.split(delimiter)) {
    if (folder !== '' && (await executable(join(folder, command)))) return undefined;
  }
  return `the command "${command}" is not found on PATH (install the Claude Code CLI or set "command" to its path)`;
}
