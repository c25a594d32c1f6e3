/**
 * The paths of every member set to `undefined` in a value, searched through its plain objects and
 * arrays (none, in an outcome or event the orchestrator hands out): an in-process caller sees
 * `'x' in value`, so an absent field must be absent, not `undefined`.
 */
export function undefinedPaths(value: unknown, path = '$'): string[] {
  if (Array.isArray(value))
    return value.flatMap((item, index) => undefinedPaths(item, `${path}[${index}]`));
  if (typeof value !== 'object' || value === null) return [];
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return [];
  return Object.entries(value).flatMap(([key, member]) =>
    member === undefined ? [`${path}.${key}`] : undefinedPaths(member, `${path}.${key}`),
  );
}
