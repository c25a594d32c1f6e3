/** Runs one lifecycle hook, if set; a throwing hook is ignored so observation never breaks a call. */
export function callHook<C>(hook: ((context: C) => void) | undefined, context: () => C): void {
  if (hook === undefined) return;
  try {
    hook(context());
  } catch {
    // Observation never breaks a call.
  }
}
