import { SpanKind, SpanStatusCode, type Attributes } from '@opentelemetry/api';
import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { Clock } from '../clock.js';
import type { InferenceObserver } from './inference-observer.js';
import { codeLabel, genAiOperation, targetLabels, type KnownTargets } from './labels.js';

/**
 * Optional OTLP trace export, configured as every OpenTelemetry SDK is: by OTEL_EXPORTER_OTLP_*
 * (the traces-specific variables first). Off unless an endpoint is set. A span per metered request
 * (`chat <model>`, GenAI attributes and token usage) and one per upstream attempt, built from what
 * inference reports to its observer, with their real start and end times. No key, app or end
 * user is ever an attribute; models are named as the metrics name them.
 */
export interface TraceExport {
  observer: InferenceObserver;
  /** Sends what is buffered and stops (at server close). */
  shutdown(): Promise<void>;
}

const PROTOCOLS = ['http/protobuf', 'http/json'] as const;

/** `key=value,key2=value2`, values URL-encoded (the OpenTelemetry specification's format). */
function headersOf(value: string | undefined, name: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of (value ?? '').split(',').filter((part) => part.trim() !== '')) {
    const equals = pair.indexOf('=');
    if (equals <= 0) throw new Error(`${name} must be a list of key=value pairs separated by commas.`);
    try {
      headers[decodeURIComponent(pair.slice(0, equals).trim())] = decodeURIComponent(pair.slice(equals + 1).trim());
    } catch {
      throw new Error(`${name} has a value that is not URL-encoded.`);
    }
  }
  return headers;
}

/** Where spans go: the traces endpoint as given, else the base endpoint's `/v1/traces`; null when neither is set. */
function endpointOf(env: NodeJS.ProcessEnv): string | null {
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT;
  const url = traces || (base ? `${base.replace(/\/+$/, '')}/v1/traces` : null);
  if (url === null) return null;
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
    throw new Error(`${traces ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' : 'OTEL_EXPORTER_OTLP_ENDPOINT'} must be an http(s) URL (got ${JSON.stringify(traces || base)}).`);
  }
  return url;
}

/**
 * The trace export the environment asks for, or null; a setting it cannot honour refuses to start.
 * `env` holds only the variables that are set (server/environment.ts setVariables: empty is unset,
 * as the OpenTelemetry specification says).
 */
export function traceExportFromEnv(env: NodeJS.ProcessEnv, deps: { known: KnownTargets; clock: Clock; version: string }): TraceExport | null {
  if (env.OTEL_SDK_DISABLED?.toLowerCase() === 'true') return null;
  const exporters = env.OTEL_TRACES_EXPORTER?.toLowerCase();
  if (exporters === 'none') return null;
  if (exporters !== undefined && exporters !== 'otlp') throw new Error(`OTEL_TRACES_EXPORTER must be otlp or none (got ${JSON.stringify(env.OTEL_TRACES_EXPORTER)}).`);
  const url = endpointOf(env);
  if (url === null) return null;
  const protocol = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf';
  if (!(PROTOCOLS as readonly string[]).includes(protocol)) {
    throw new Error(`OTEL_EXPORTER_OTLP_PROTOCOL must be ${PROTOCOLS.join(' or ')} (got ${JSON.stringify(protocol)}; grpc is not supported).`);
  }
  const headers = { ...headersOf(env.OTEL_EXPORTER_OTLP_HEADERS, 'OTEL_EXPORTER_OTLP_HEADERS'), ...headersOf(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS, 'OTEL_EXPORTER_OTLP_TRACES_HEADERS') };
  const timeout = Number(env.OTEL_EXPORTER_OTLP_TRACES_TIMEOUT ?? env.OTEL_EXPORTER_OTLP_TIMEOUT ?? 10_000);
  if (!Number.isSafeInteger(timeout) || timeout <= 0) throw new Error('OTEL_EXPORTER_OTLP_TIMEOUT must be a whole number of milliseconds.');
  const config = { url, headers, timeoutMillis: timeout };
  const exporter = protocol === 'http/json' ? new OtlpJsonExporter(config) : new OtlpProtobufExporter(config);
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME || 'svc', 'service.version': deps.version }),
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer('svc', deps.version);
  const { known, clock } = deps;

  const span = (name: string, start: number, end: number, attributes: Attributes, error: string | null) => {
    const started = tracer.startSpan(name, { kind: SpanKind.CLIENT, startTime: start, attributes });
    if (error) started.setStatus({ code: SpanStatusCode.ERROR, message: error });
    started.end(end);
  };

  return {
    observer: {
      usageRecorded(row, chargedMicro) {
        const target = targetLabels(known, row.provider, row.model);
        const operation = genAiOperation(row.operation);
        const end = Date.parse(row.at);
        const error = row.status === 'ok' ? null : codeLabel(row.errorCode) || row.status;
        span(
          `${operation} ${target.gen_ai_request_model}`,
          end - row.latencyMs,
          end,
          {
            'gen_ai.operation.name': operation,
            'gen_ai.provider.name': target.gen_ai_provider_name,
            'gen_ai.request.model': target.gen_ai_request_model,
            'gen_ai.usage.input_tokens': row.inputTokens,
            'gen_ai.usage.output_tokens': row.outputTokens,
            ...(row.cacheReadTokens ? { 'gen_ai.usage.cache_read.input_tokens': row.cacheReadTokens } : {}),
            'svc.operation': codeLabel(row.operation),
            'svc.request_id': row.requestId,
            'svc.status': row.status,
            'svc.charged_micro_credits': chargedMicro,
            ...(row.ttftMs === null ? {} : { 'svc.time_to_first_token_ms': row.ttftMs }),
            ...(error ? { 'error.type': error } : {}),
          },
          error,
        );
      },
      attemptEnded(attempt) {
        const target = targetLabels(known, attempt.provider, attempt.model);
        const end = clock.now().getTime();
        const error = attempt.outcome === 'ok' ? null : codeLabel(attempt.outcome);
        span(
          `attempt ${target.gen_ai_provider_name}/${target.gen_ai_request_model}`,
          end - attempt.latencyMs,
          end,
          {
            'gen_ai.provider.name': target.gen_ai_provider_name,
            'gen_ai.request.model': target.gen_ai_request_model,
            'svc.route': attempt.route ?? '',
            'svc.retry': attempt.retry,
            'svc.fallback': attempt.fallback,
            ...(error ? { 'error.type': error } : {}),
          },
          error,
        );
      },
      breakerChanged() {},
      holdsInFlight() {},
    },
    shutdown: () => provider.shutdown(),
  };
}
