import { describe, expect, it } from 'vitest';
import { tracesEndpoint, tracingRequested } from './start-tracing';

describe('tracingRequested', () => {
  it('is on with an OTLP endpoint, a traces endpoint, or otlp among the traces exporters', () => {
    expect(tracingRequested({})).toBe(false);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).toBe(true);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c/v1/traces' })).toBe(
      true,
    );
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: 'console, otlp' })).toBe(true);
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: 'console' })).toBe(false);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: '' })).toBe(false);
  });

  it('is off when the SDK is disabled or the traces exporter is none', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' };
    expect(tracingRequested({ ...endpoint, OTEL_SDK_DISABLED: 'true' })).toBe(false);
    expect(tracingRequested({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' })).toBe(false);
  });
});

describe('tracesEndpoint', () => {
  it('is the traces endpoint as given, else the base endpoint with /v1/traces, else localhost', () => {
    expect(tracesEndpoint({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:1/t' })).toBe(
      'http://c:1/t',
    );
    expect(tracesEndpoint({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/' })).toBe(
      'http://c:4318/v1/traces',
    );
    expect(tracesEndpoint({})).toBe('http://localhost:4318/v1/traces');
  });
});
