import { DEFAULT_MAX_RETRIES } from './create-sdk-transport';
import type { SdkClientOptions } from './streaming-call';
import type { SdkTransportOptionsBase } from './transport-options';

/** Constructor options for an SDK client the transport builds itself. */
export function sdkClientOptions(options: SdkTransportOptionsBase): SdkClientOptions {
  return {
    ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
    ...(options.baseUrl === undefined ? {} : { baseURL: options.baseUrl }),
    ...(options.defaultHeaders === undefined ? {} : { defaultHeaders: options.defaultHeaders }),
    maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
  };
}
