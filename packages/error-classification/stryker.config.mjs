// Mutation testing of @keel/error-classification (`pnpm mutation` at the root; not in CI).
import { strykerOptions } from '../../tools/mutation/stryker-options.mjs';

export default strykerOptions();
