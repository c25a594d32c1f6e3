export type { AttemptRecord } from './attempt-record';
export { AttemptTimeoutError } from './attempt-timeout-error';
export { createKeelModel } from './create-keel-model';
export { IncompleteStreamError } from './incomplete-stream-error';
export type { KeelModelConfigErrorOptions, KeelModelErrorOptions } from './keel-model-error';
export { KeelModelConfigError, KeelModelError } from './keel-model-error';
export type {
  KeelDecisionLabel,
  KeelModelEvent,
  KeelModelOptions,
  KeelRetryOptions,
  KeelTimeoutOptions,
  StreamMode,
} from './keel-model-options';
