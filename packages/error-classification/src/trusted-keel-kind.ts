import { type ErrorKind, isErrorKind } from './error-kind';

const MARKER_PREFIX = 'keel.error.';

function isError(value: object): boolean {
  return value instanceof Error || Object.prototype.toString.call(value) === '[object Error]';
}

/** An own data property `Symbol.for('keel.error.<Name>')` whose value is `true`. */
function hasKeelMarker(value: object): boolean {
  for (const symbol of Object.getOwnPropertySymbols(value)) {
    if (Symbol.keyFor(symbol)?.startsWith(MARKER_PREFIX) !== true) continue;
    const descriptor = Object.getOwnPropertyDescriptor(value, symbol);
    if (descriptor !== undefined && 'value' in descriptor && descriptor.value === true) return true;
  }
  return false;
}

/**
 * The `keelKind` of an error Keel raised, else `undefined`: only an `Error` that carries its
 * own `Symbol.for('keel.error.<Name>')` marker set to `true` is believed (`KindedError` in
 * `@keel/spec`). JSON cannot hold a symbol, so a `keelKind` in a provider's body, a message or
 * a parsed value never counts. Never throws.
 */
export function trustedKeelKind(value: object): ErrorKind | undefined {
  try {
    if (!isError(value) || !hasKeelMarker(value)) return undefined;
    const kind = (value as { keelKind?: unknown }).keelKind;
    return isErrorKind(kind) ? kind : undefined;
  } catch {
    return undefined;
  }
}
