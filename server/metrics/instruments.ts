import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The instruments `GET /metrics` shows, in one registry per server (tests run several servers in
 * one process). Names follow the OpenTelemetry GenAI semantic conventions where they define one,
 * as an OpenTelemetry Prometheus exporter writes them (dots become underscores, the unit `s` a
 * `_seconds` suffix); the rest are `svc_`. Labels are bounded sets (providers, models and
 * operations the server knows, statuses, error classes): never a key, an app or an address.
 */

/** The GenAI request attributes, in their Prometheus spelling. */
const GEN_AI = ['gen_ai_operation_name', 'gen_ai_provider_name', 'gen_ai_request_model'] as const;

/** OpenTelemetry's bucket advice: tokens ×4 from 1 to 4^13. */
const TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];
/** OpenTelemetry's advice for gen_ai.server.request.duration. */
const DURATION_BUCKETS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];
/** OpenTelemetry's advice for gen_ai.server.time_to_first_token. */
const FIRST_TOKEN_BUCKETS = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0];

export function createInstruments() {
  // prom-client's default process metrics stay out: its event-loop figures read `Nan` until the
  // first sample, which strict parsers refuse; node_exporter and the platform report the process.
  const registry = new Registry();
  const registers = [registry];
  return {
    registry,
    requests: new Counter({
      name: 'svc_requests_total',
      help: 'Metered requests by how they ended (one per usage row): status ok, error, canceled or refused, error_type the error code.',
      labelNames: [...GEN_AI, 'operation', 'status', 'error_type'],
      registers,
    }),
    tokens: new Histogram({
      name: 'gen_ai_client_token_usage',
      help: 'Tokens per request (gen_ai.client.token.usage): input, output, and cached (the part of the input read from the prompt cache).',
      labelNames: [...GEN_AI, 'gen_ai_token_type'],
      buckets: TOKEN_BUCKETS,
      registers,
    }),
    duration: new Histogram({
      name: 'gen_ai_server_request_duration_seconds',
      help: 'Time from a metered request being held to its last token (gen_ai.server.request.duration); error_type is set when it failed.',
      labelNames: [...GEN_AI, 'error_type'],
      buckets: DURATION_BUCKETS,
      registers,
    }),
    firstToken: new Histogram({
      name: 'gen_ai_server_time_to_first_token_seconds',
      help: 'Time to the first token of a successful response (gen_ai.server.time_to_first_token).',
      labelNames: GEN_AI,
      buckets: FIRST_TOKEN_BUCKETS,
      registers,
    }),
    cost: new Counter({
      name: 'svc_cost_micro_credits_total',
      help: 'What the requests cost at the model prices, in micro-credits (1 credit = $0.01 = 1,000,000 micro-credits).',
      labelNames: GEN_AI,
      registers,
    }),
    charged: new Counter({
      name: 'svc_charged_micro_credits_total',
      help: 'What the callers were charged, in micro-credits (below the cost only when a balance ran out; 0 for test keys).',
      labelNames: GEN_AI,
      registers,
    }),
    attempts: new Counter({
      name: 'svc_upstream_attempts_total',
      help: 'Upstream attempts by target and outcome (ok, or the error class); route is empty for a model called directly.',
      labelNames: ['route', 'gen_ai_provider_name', 'gen_ai_request_model', 'outcome'],
      registers,
    }),
    upstreamErrors: new Counter({
      name: 'svc_upstream_errors_total',
      help: 'Failed upstream attempts by error class (connection, timeout, rate_limited, server_error, overloaded, auth, context_length, ...).',
      labelNames: ['route', 'gen_ai_provider_name', 'gen_ai_request_model', 'error_class'],
      registers,
    }),
    retries: new Counter({
      name: 'svc_upstream_retries_total',
      help: 'Attempts that repeated a target already tried.',
      labelNames: ['route', 'gen_ai_provider_name', 'gen_ai_request_model'],
      registers,
    }),
    fallbacks: new Counter({
      name: 'svc_upstream_fallbacks_total',
      help: 'Attempts that moved on to another target (labelled with the target moved to).',
      labelNames: ['route', 'gen_ai_provider_name', 'gen_ai_request_model'],
      registers,
    }),
    breaker: new Gauge({
      name: 'svc_circuit_breaker_state',
      help: "Each target's circuit breaker: 1 on the state it is in (closed, open, half_open), 0 on the others.",
      labelNames: ['target', 'state'],
      registers,
    }),
    holds: new Gauge({
      name: 'svc_holds_in_flight',
      help: 'Requests holding credits right now (held, not yet settled).',
      registers,
    }),
  };
}

export type Instruments = ReturnType<typeof createInstruments>;
