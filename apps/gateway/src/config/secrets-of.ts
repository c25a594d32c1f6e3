import { mcpSecretsOf } from '../tools/mcp-secrets';
import type { KeelConfig } from './config-schema';

/** Environment variables whose values are treated as secrets even when no config uses them. */
const SECRET_NAME = /(^|_)(API_?KEY|KEY|TOKEN|SECRET|PASSWORD)$/i;
/**
 * Values of secret-named variables the configuration does not use count from this length: a
 * short one (`SKIP_KEY=1`) is a flag, and redacting it would blank out numbers in every line.
 * Secrets the configuration holds count at any length.
 */
const MIN_UNUSED_SECRET_LENGTH = 8;

/**
 * Every secret a configuration holds (provider keys, the bearer token, client key secrets, a storage URL, a CLI
 * provider's environment) plus the values of secret-named environment variables (8 characters
 * or more): what the logger must never write.
 */
export function secretsOf(
  config: KeelConfig,
  env: Readonly<Record<string, string | undefined>> = {},
): string[] {
  const secrets: string[] = [];
  if (config.server.authToken !== undefined) secrets.push(config.server.authToken);
  for (const key of config.keys) secrets.push(key.secret);
  if (config.storage.kind === 'postgres') secrets.push(config.storage.url);
  for (const provider of config.providers) {
    // The embedded demo model sends its keys nowhere; they are examples (`demo`), not secrets.
    if ('profiles' in provider && provider.api !== 'demo')
      for (const profile of provider.profiles ?? []) secrets.push(profile.apiKey);
    if (provider.api === 'claude-cli') {
      for (const [name, value] of Object.entries(provider.env ?? {})) {
        if (SECRET_NAME.test(name)) secrets.push(value);
      }
    }
  }
  secrets.push(...mcpSecretsOf(config.tools));
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && value.length >= MIN_UNUSED_SECRET_LENGTH && SECRET_NAME.test(name))
      secrets.push(value);
  }
  return secrets;
}
