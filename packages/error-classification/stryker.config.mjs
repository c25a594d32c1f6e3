// Mutation testing of @keel/error-classification (`pnpm mutation` at the root; not in CI).
// MUTATION_TESTS (comma-separated globs, relative to the package) runs only those test files
// against the mutants: a file's own unit tests, when the whole suite is too slow for the machine.
// Mutants those tests leave alive may still be killed by the rest of the suite.
import { strykerOptions } from '../../tools/mutation/stryker-options.mjs';

const testFiles = process.env.MUTATION_TESTS?.split(',').filter(Boolean);

export default { ...strykerOptions(), ...(testFiles === undefined ? {} : { testFiles }) };
