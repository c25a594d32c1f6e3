import { classifyError } from '@keel/error-classification';
import { type MockBehavior, mockFaults } from '@keel/testing';
import { describe, expect, it } from 'vitest';
import {
  drain,
  hello,
  SDK_TARGETS,
  textOf,
  transportFor,
  useMockProvider,
} from '../test/mock-transport';
import { IncompleteStreamError, TransportError } from './transport-error';

const mock = useMockProvider();

const httpFaults: Array<[string, () => MockBehavior, string]> = [
  ['overloaded', () => mockFaults.overloaded(), 'overloaded'],
  ['rate limited', () => mockFaults.rateLimited({ retryAfterSeconds: 2 }), 'rate_limit'],
  ['unauthorized', () => mockFaults.unauthorized(), 'auth'],
  ['billing', () => mockFaults.billing(), 'billing'],
  ['prompt too long', () => mockFaults.promptTooLong(), 'context_overflow'],
  ['server error 500', () => mockFaults.serverError(500), 'server_error'],
  ['bad gateway 502', () => mockFaults.serverError(502), 'server_error'],
  ['model not found', () => mockFaults.modelNotFound(), 'model_not_found'],
];

describe.each(SDK_TARGETS)('$name faults', (target) => {
  it.each(httpFaults)('an HTTP error (%s) is thrown and classified', async (_name, fault, kind) => {
    mock.enqueue(fault());
    const { events, error } = await drain(transportFor(target, mock).stream(hello));
    expect(events).toEqual([]);
    expect(error).toBeInstanceOf(Error);
    expect((error as { status?: unknown }).status).toBeTypeOf('number');
    expect(classifyError(error).kind).toBe(kind);
    expect(mock.requests).toHaveLength(1);
  });

  it('a reset before headers is a connection error', async () => {
    mock.enqueue({ type: 'reset-before-headers' });
    const { events, error } = await drain(transportFor(target, mock).stream(hello));
    expect(events).toEqual([]);
    expect(error).toBeInstanceOf(Error);
    expect(classifyError(error).kind).toBe('connection');
  });

  it('a reset after some chunks throws after the text, never a short success', async () => {
    mock.enqueue({ type: 'reset-after-chunks', chunks: 2, text: 'partial text that is long' });
    const { events, error } = await drain(transportFor(target, mock).stream(hello));
    expect(textOf(events).length).toBeGreaterThan(0);
    expect(events.some((event) => event.type === 'finish')).toBe(false);
    expect(error).toBeInstanceOf(Error);
    expect(classifyError(error).kind).toBe('connection');
  });

  it('an in-stream overloaded error is thrown as overloaded', async () => {
    mock.enqueue({ type: 'stream-error', afterChunks: 1, errorType: 'overloaded_error' });
    const { events, error } = await drain(transportFor(target, mock).stream(hello));
    expect(textOf(events).length).toBeGreaterThan(0);
    expect(events.some((event) => event.type === 'finish')).toBe(false);
    expect(error).toBeInstanceOf(Error);
    expect(TransportError.isInstance(error)).toBe(false);
    expect(classifyError(error).kind).toBe('overloaded');
  });

  it('an in-stream rate limit error is thrown as rate_limit', async () => {
    mock.enqueue({ type: 'stream-error', afterChunks: 0, errorType: 'rate_limit_error' });
    const { events, error } = await drain(transportFor(target, mock).stream(hello));
    expect(events.some((event) => event.type === 'finish')).toBe(false);
    expect(classifyError(error).kind).toBe('rate_limit');
  });

  it('a stream that ends without its terminal event is a connection error', async () => {
    mock.enqueue({ type: 'truncated-stream', chunks: 2, text: 'cut short before the end' });
    const { events, error } = await drain(transportFor(target, mock).stream(hello));
    expect(textOf(events).length).toBeGreaterThan(0);
    expect(events.some((event) => event.type === 'finish')).toBe(false);
    expect(error).toBeInstanceOf(IncompleteStreamError);
    expect(classifyError(error).kind).toBe('connection');
  });
});
