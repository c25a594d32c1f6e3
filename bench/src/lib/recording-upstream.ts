/**
 * A loopback proxy in front of the mock provider that records when each model request arrived
 * (`performance.now()`), so a benchmark measures what reached the provider, not what a gateway
 * decided to send.
 */
import { forwardTo } from '@keel/testing';

export interface RecordingUpstream {
  /** The proxy's `/v1` base URL (for an `openai-chat` provider). */
  readonly baseUrl: string;
  /** Arrival times (ms, monotonic) of the model requests (`POST`s). */
  readonly arrivals: number[];
  close(): Promise<void>;
}

/** `target`: the mock provider's `openaiBaseUrl`. */
export async function startRecordingUpstream(target: string): Promise<RecordingUpstream> {
  const arrivals: number[] = [];
  const proxy = await forwardTo(target, (incoming) => {
    if (incoming.method === 'POST') arrivals.push(performance.now());
    return false;
  });
  return { baseUrl: proxy.baseUrl, arrivals, close: () => proxy.close() };
}
