import { MissingSdkError } from './transport-error';
import type { TransportApi } from './types';

/** Loads an optional SDK module; the default is a dynamic `import()` of the package. */
export type SdkLoader<Module> = () => Promise<Module>;

/** Runs `loader`; any failure becomes a `MissingSdkError` naming the package to install. */
export async function loadSdk<Module>(
  packageName: string,
  api: TransportApi,
  loader: SdkLoader<Module>,
): Promise<Module> {
  try {
    return await loader();
  } catch (error) {
    throw new MissingSdkError({
      packageName,
      message: `@keel/transport: the "${api}" API needs the optional peer dependency "${packageName}", which could not be loaded. Install it: npm install ${packageName}`,
      cause: error,
    });
  }
}
