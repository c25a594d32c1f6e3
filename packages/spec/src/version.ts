/** The version of the contracts in this package that ports and plugins implement. */
export const SPEC_VERSION = 'v1';
