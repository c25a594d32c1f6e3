// The gateway's spans (turn-tracer.ts) go through `@opentelemetry/api`, a no-op until an SDK is
// registered. This registers one, exporting over OTLP/HTTP, when the standard OpenTelemetry
// environment asks for it — and loads nothing of the SDK otherwise.

type Env = Readonly<Record<string, string | undefined>>;

export interface Tracing {
  /** Where spans go (the traces URL the exporter posts to). */
  readonly endpoint: string;
  /** Exports the spans still buffered, then stops; never rejects. */
  shutdown(): Promise<void>;
}

/**
 * True when the environment asks for OTLP traces: `OTEL_EXPORTER_OTLP_ENDPOINT` or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` set, or `otlp` among `OTEL_TRACES_EXPORTER`; never with
 * `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none`.
 */
export function tracingRequested(env: Env): boolean {
  if (env['OTEL_SDK_DISABLED']?.trim().toLowerCase() === 'true') return false;
  const exporters = (env['OTEL_TRACES_EXPORTER'] ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  if (exporters.includes('none')) return false;
  if (exporters.includes('otlp')) return true;
  return Boolean(env['OTEL_EXPORTER_OTLP_ENDPOINT'] || env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']);
}

/**
 * The URL spans are posted to, as the exporter derives it: the traces endpoint as given, else
 * the base endpoint with `/v1/traces`, else the collector's default on localhost.
 */
export function tracesEndpoint(env: Env): string {
  const traces = env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'];
  if (traces) return traces;
  const base = env['OTEL_EXPORTER_OTLP_ENDPOINT'];
  if (base) return `${base.replace(/\/+$/, '')}/v1/traces`;
  return 'http://localhost:4318/v1/traces';
}

/**
 * Registers a global tracer provider whose batched spans go to an OTLP/HTTP (JSON) exporter
 * configured by the standard variables (endpoint, headers, timeout, `OTEL_BSP_*`), under the
 * service `OTEL_SERVICE_NAME` (default `keel-gateway`; `OTEL_RESOURCE_ATTRIBUTES` added).
 * Returns `undefined`, loading nothing, when `tracingRequested` is false.
 */
export async function startTracing(env: Env = process.env): Promise<Tracing | undefined> {
  if (!tracingRequested(env)) return undefined;
  const [api, exporterModule, sdk, resources] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/resources'),
  ]);
  const resource = resources
    .defaultResource()
    .merge(
      resources.resourceFromAttributes({
        'service.name': env['OTEL_SERVICE_NAME'] || 'keel-gateway',
      }),
    )
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  const provider = new sdk.BasicTracerProvider({
    resource,
    spanProcessors: [new sdk.BatchSpanProcessor(new exporterModule.OTLPTraceExporter())],
  });
  api.trace.setGlobalTracerProvider(provider);
  return {
    endpoint: tracesEndpoint(env),
    shutdown: () => provider.shutdown().catch(() => undefined),
  };
}
