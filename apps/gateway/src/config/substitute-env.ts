import type { ConfigProblem } from './config-error';

const PATTERN = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * Replaces `${NAME}` (and `${NAME:-fallback}`) in every string of a parsed JSON value with the
 * environment's value. An unset variable without a fallback is a problem at that path; the
 * values themselves never appear in a problem (they may be secrets).
 */
export function substituteEnv(
  value: unknown,
  env: Readonly<Record<string, string | undefined>>,
  problems: ConfigProblem[],
  path: string[] = [],
): unknown {
  if (typeof value === 'string') {
    return value.replace(PATTERN, (_match, name: string, fallback: string | undefined) => {
      const found = env[name];
      if (found !== undefined) return found;
      if (fallback !== undefined) return fallback;
      problems.push({ path: path.join('.'), message: `environment variable ${name} is not set` });
      return '';
    });
  }
  if (Array.isArray(value))
    return value.map((item, index) => substituteEnv(item, env, problems, [...path, String(index)]));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [
        key,
        substituteEnv(item, env, problems, [...path, key]),
      ]),
    );
  }
  return value;
}
