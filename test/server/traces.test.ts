import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../../server/app.js';
import { API } from '../helpers/api.js';
import { pricedProvider } from '../helpers/providers.js';
import { startTestServer } from '../helpers/server.js';

/**
 * OTLP trace export by the standard OTEL_EXPORTER_OTLP_* variables: a fake collector receives a
 * span per metered request (GenAI attributes, token usage) and per upstream attempt, in JSON or
 * protobuf as asked, with the headers asked for; nothing names a key or an app.
 */
interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}
let collector: { url: string; received: Received[]; close(): Promise<void> };

beforeAll(async () => {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(200, { 'content-type': String(req.headers['content-type'] ?? 'application/json') });
      res.end(req.headers['content-type'] === 'application/json' ? '{}' : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  collector = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
});
afterAll(async () => collector?.close());

interface JsonSpan {
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: { key: string; value: Record<string, unknown> }[];
  status?: { code?: number };
}
const attributesOf = (span: JsonSpan) =>
  Object.fromEntries(span.attributes.map(({ key, value }) => [key, value.stringValue ?? value.intValue ?? value.boolValue ?? value.doubleValue]));

describe('OTLP traces', () => {
  it('http/json: a span per request with its GenAI attributes and usage, and one per attempt, sent at close', async () => {
    const before = collector.received.length;
    const t = await startTestServer({
      providers: [pricedProvider()],
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: `${collector.url}/otlp/`, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-token=abc%20def', OTEL_SERVICE_NAME: 'svc-test' },
    });
    const answer = await t.call('POST', `${API}/chat/completions`, { body: { model: 'paid/echo', max_tokens: 20, messages: [{ role: 'user', content: 'trace me' }] } });
    expect(answer.status).toBe(200);
    await t.close();

    const sent = collector.received.slice(before);
    expect(sent.length).toBeGreaterThanOrEqual(1);
    expect(sent[0]).toMatchObject({ path: '/otlp/v1/traces', headers: { 'content-type': 'application/json', 'x-collector-token': 'abc def' } });
    const payloads = sent.map((request) => JSON.parse(request.body.toString('utf8')));
    const resource = payloads[0].resourceSpans[0].resource;
    expect(resource.attributes).toContainEqual({ key: 'service.name', value: { stringValue: 'svc-test' } });
    const spans: JsonSpan[] = payloads.flatMap((payload) => payload.resourceSpans.flatMap((rs: { scopeSpans: { spans: JsonSpan[] }[] }) => rs.scopeSpans.flatMap((ss) => ss.spans)));

    const request = spans.find((span) => span.name === 'chat echo');
    expect(request).toBeDefined();
    expect(attributesOf(request!)).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'paid',
      'gen_ai.request.model': 'echo',
      'gen_ai.usage.input_tokens': answer.body.usage.prompt_tokens,
      'gen_ai.usage.output_tokens': answer.body.usage.completion_tokens,
      'svc.status': 'ok',
      'svc.request_id': answer.headers.get('x-request-id'),
    });
    const attempt = spans.find((span) => span.name === 'attempt paid/echo');
    expect(attempt && attributesOf(attempt)).toMatchObject({ 'gen_ai.provider.name': 'paid', 'svc.route': '' });

    const text = sent.map((request) => request.body.toString('utf8')).join('');
    for (const secret of [t.liveKey, t.appUuid]) expect(text).not.toContain(secret);
  });

  it('http/protobuf by default, at the traces endpoint as given; a variable set but empty is unset (the specification says so)', async () => {
    const before = collector.received.length;
    const empty = { OTEL_TRACES_EXPORTER: '', OTEL_EXPORTER_OTLP_PROTOCOL: '', OTEL_EXPORTER_OTLP_TIMEOUT: '', OTEL_EXPORTER_OTLP_ENDPOINT: '', OTEL_SERVICE_NAME: '' };
    const t = await startTestServer({ providers: [pricedProvider()], env: { ...empty, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${collector.url}/custom/traces` } });
    expect((await t.call('POST', `${API}/chat/completions`, { body: { model: 'paid/echo', max_tokens: 20, messages: [{ role: 'user', content: 'in protobuf' }] } })).status).toBe(200);
    await t.close();
    const sent = collector.received.slice(before);
    expect(sent[0]).toMatchObject({ path: '/custom/traces', headers: { 'content-type': 'application/x-protobuf' } });
    // Strings travel as themselves in protobuf: the span's name and attributes are in the bytes.
    const bytes = Buffer.concat(sent.map((request) => request.body)).toString('latin1');
    expect(bytes).toContain('chat echo');
    expect(bytes).toContain('gen_ai.usage.input_tokens');
  });

  it('settings it cannot honour refuse to start, in one line', async () => {
    const start = (env: Record<string, string>) => startServer({ dbPath: ':memory:', port: 0, log: () => {}, env });
    await expect(start({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).rejects.toThrow(/OTEL_EXPORTER_OTLP_PROTOCOL must be http\/protobuf or http\/json/);
    await expect(start({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).rejects.toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT must be an http\(s\) URL/);
    await expect(start({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_EXPORTER_OTLP_HEADERS: 'no-equals-sign' })).rejects.toThrow(/OTEL_EXPORTER_OTLP_HEADERS must be a list of key=value/);
    await expect(start({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_TRACES_EXPORTER: 'zipkin' })).rejects.toThrow(/OTEL_TRACES_EXPORTER must be otlp or none/);
  });

  it('off with OTEL_TRACES_EXPORTER=none or OTEL_SDK_DISABLED=true: nothing is sent', async () => {
    const before = collector.received.length;
    for (const off of [{ OTEL_TRACES_EXPORTER: 'none' }, { OTEL_SDK_DISABLED: 'true' }]) {
      const t = await startTestServer({ providers: [pricedProvider()], env: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, ...off } });
      expect((await t.call('POST', `${API}/chat/completions`, { body: { model: 'paid/echo', max_tokens: 20, messages: [{ role: 'user', content: 'quiet' }] } })).status).toBe(200);
      await t.close();
    }
    expect(collector.received.length).toBe(before);
  });
});
