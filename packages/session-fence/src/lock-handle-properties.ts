/** Where a handle keeps the reads of its own state that its `released` and `wanted` ask. */
export const HANDLE_READS = Symbol('handle reads');

export interface HandleReads {
  released(): boolean;
  wanted(): boolean;
}

/**
 * A handle's `released` and `wanted`, one pair of getters for every handle (their prototype): a
 * getter in each handle's own literal would keep the handle's scope alive through every scavenge
 * (see `fenceProperties`).
 */
export const handleProperties = {
  get released(): boolean {
    return (this as unknown as { [HANDLE_READS]: HandleReads })[HANDLE_READS].released();
  },
  get wanted(): boolean {
    return (this as unknown as { [HANDLE_READS]: HandleReads })[HANDLE_READS].wanted();
  },
};
