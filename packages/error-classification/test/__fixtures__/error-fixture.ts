import type { ProviderName } from '../../src/error-classification';
import type { ErrorKind } from '../../src/error-kind';

/**
 * One recorded provider error. `http` fixtures are turned into real SDK errors by the table
 * test (through the SDK's own `APIError.generate`), and also into a wrapper whose message holds
 * the status and the body, as CLIs log them. `error` fixtures are thrown as they are; most new
 * ones are plain log strings with no status attached, where classification has least to go on.
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
    /** A JSON body, or the text of a body that is not JSON (an HTML error page). */
    body: Record<string, unknown> | string;
    headers?: Record<string, string>;
  };
  error?: unknown;
  /** The status the classification must report, for an `error` that carries it only in text. */
  status?: number;
  /** The caller's signal is aborted when this error is classified. */
  callerAborted?: boolean;
  provider?: ProviderName;
  code?: string;
}
