import type { ProviderName } from '../../src/error-classification';
import type { ErrorKind } from '../../src/error-kind';

/**
 * One recorded provider error. `http` fixtures are turned into real SDK errors by the table
 * test (through the SDK's own `APIError.generate`), and also into a wrapper whose message holds
 * the status and the JSON body, as CLIs log them. `error` fixtures are thrown as they are.
 */
export interface ErrorFixture {
  /** Where the payload or message comes from (URL or document name). */
  source: string;
  kind: ErrorKind;
  /** A short, unique description. */
  name: string;
  http?: {
    sdk: 'openai' | 'anthropic';
    status: number;
    body: Record<string, unknown>;
    headers?: Record<string, string>;
  };
  error?: unknown;
  /** The caller's signal is aborted when this error is classified. */
  callerAborted?: boolean;
  provider?: ProviderName;
  code?: string;
}
