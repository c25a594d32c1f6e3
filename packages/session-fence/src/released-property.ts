/** Where a lease or a turn claim keeps the read of its own `released`. */
export const RELEASED_READ = Symbol('released read');

/**
 * The `released` of a lease or a turn claim, one getter for all of them (their prototype), asking
 * the object's own read. A getter in each object's literal would be allocated (its accessor pair)
 * in V8's old generation and keep the object's whole scope alive through every scavenge until the
 * next full collection (CONTRIBUTING.md, "Objects on the hot path").
 */
export const releasedProperty = {
  get released(): boolean {
    return (this as unknown as { [RELEASED_READ]: () => boolean })[RELEASED_READ]();
  },
};
