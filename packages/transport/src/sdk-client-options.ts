import { DEFAULT_MAX_RETRIES } from './create-sdk-transport';
import { httpFetch } from './http-fetch';
import type { SdkClientOptions } from './streaming-call';
import type { SdkTransportOptionsBase } from './transport-options';

/**
 * The `fetch` options of a client the transport builds: a redirect is refused, never followed (it
 * would resend the request, its key headers included, to another address; a provider's API does
 * not redirect), and the request belongs to no window. With both, Node's `fetch` sends the
 * request as built instead of first copying it (a copy tees the body stream of every request).
 */
const FETCH_OPTIONS = Object.freeze({ window: null, redirect: 'error' as const });

/** Constructor options for an SDK client the transport builds itself. */
export function sdkClientOptions(options: SdkTransportOptionsBase): SdkClientOptions {
  return {
    ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
    ...(options.baseUrl === undefined ? {} : { baseURL: options.baseUrl }),
    ...(options.defaultHeaders === undefined ? {} : { defaultHeaders: options.defaultHeaders }),
    maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
    fetchOptions: FETCH_OPTIONS,
    // `node:http` over keep-alive agents unless the caller chose a `fetch` (see `http-fetch.ts`).
    fetch: options.fetch ?? httpFetch,
  };
}
