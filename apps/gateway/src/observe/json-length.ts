/** Characters `JSON.stringify` writes as more than themselves (and every non-ASCII one, to be safe). */
const ESCAPED = /["\\\u0000-\u001f\u007f-\uffff]/;

/**
 * `JSON.stringify(value).length`, counted without writing the JSON (no string built, nothing for
 * the collector): an event log sizes every event it keeps. A string with a character JSON escapes
 * (or any non-ASCII one), and an object with `toJSON`, is measured by `JSON.stringify` itself.
 * A value JSON leaves out (`undefined`, a function, a symbol) counts 0, as `JSON.stringify` gives none.
 */
export function jsonLength(value: unknown): number {
  switch (typeof value) {
    case 'string':
      return ESCAPED.test(value) ? JSON.stringify(value).length : value.length + 2;
    case 'number':
      return numberLength(value);
    case 'boolean':
      return value ? 4 : 5;
    case 'object':
      if (value === null) return 4;
      if (Array.isArray(value)) return arrayLength(value);
      if (typeof (value as { toJSON?: unknown }).toJSON === 'function') {
        return JSON.stringify(value)?.length ?? 0;
      }
      return objectLength(value as Record<string, unknown>);
    case 'bigint':
      return JSON.stringify(value).length; // throws, as JSON.stringify does
    default:
      return 0;
  }
}

function arrayLength(items: readonly unknown[]): number {
  let length = 2 + Math.max(0, items.length - 1);
  for (const item of items) length += omitted(item) ? 4 : jsonLength(item);
  return length;
}

function objectLength(object: Record<string, unknown>): number {
  let length = 2;
  let fields = 0;
  for (const key in object) {
    if (!Object.hasOwn(object, key)) continue;
    const field = object[key];
    if (omitted(field)) continue;
    length += jsonLength(key) + 1 + jsonLength(field);
    fields += 1;
  }
  return fields > 1 ? length + fields - 1 : length;
}

function numberLength(value: number): number {
  if (!Number.isFinite(value)) return 4; // null
  if (!Number.isSafeInteger(value) || value < 0 || value >= 1e15) return String(value).length;
  let digits = 1;
  for (let power = 10; value >= power; power *= 10) digits += 1;
  return digits;
}

/** What JSON writes as nothing in an object and as `null` in an array. */
function omitted(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}
