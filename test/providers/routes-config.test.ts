import { describe, expect, it } from 'vitest';
import { startServer } from '../../server/app.js';
import { gatewayFromConfig } from '../../server/providers/build.js';
import { ProvidersConfigError } from '../../server/providers/config.js';
import { writeProvidersFile } from '../helpers/routes.js';

/**
 * Routes in the providers file: read and flattened, and every mistake refused at start with one
 * line that names the file, the line and column, and what is wrong.
 */
const provider = {
  id: 'acme',
  type: 'openai',
  base_url: 'http://127.0.0.1:9/v1',
  models: [
    { id: 'small', input_price: 1, output_price: 2 },
    { id: 'large', input_price: 5, output_price: 10 },
  ],
};

/** What the server says when it starts with these routes: null when it starts, else its one-line refusal. */
function refusal(routes: unknown): string | null {
  const file = writeProvidersFile({ providers: [provider], routes });
  try {
    gatewayFromConfig({}, file);
    return null;
  } catch (error) {
    expect(error).toBeInstanceOf(ProvidersConfigError);
    const message = (error as Error).message;
    expect(message.split('\n')).toHaveLength(1);
    return message.replace(file, 'FILE');
  }
}

describe('routes in the providers file', () => {
  it('are read, a route naming a route taking its targets in place, its weight shared', () => {
    const file = writeProvidersFile({
      providers: [provider],
      routes: {
        both: { strategy: 'fallback', targets: [{ model: 'acme/large' }, { model: 'local/echo' }] },
        mix: { strategy: 'weighted', targets: [{ model: 'acme/small', weight: 2 }, { model: 'route/both', weight: 2 }] },
      },
    });
    const { routes } = gatewayFromConfig({}, file);
    expect(routes).toEqual([
      { id: 'route/both', strategy: 'fallback', targets: [{ model: 'acme/large', weight: 1 }, { model: 'local/echo', weight: 1 }] },
      {
        id: 'route/mix',
        strategy: 'weighted',
        targets: [
          { model: 'acme/small', weight: 2 },
          { model: 'acme/large', weight: 1 },
          { model: 'local/echo', weight: 1 },
        ],
      },
    ]);
  });

  it.each([
    [
      'a target naming a model no provider serves',
      { r: { strategy: 'fallback', targets: [{ model: 'acme/small' }, { model: 'acme/huge' }] } },
      /^FILE:\d+:\d+: route 'r' names the model 'acme\/huge', which no configured provider serves$/,
    ],
    [
      'a target naming a route that is not defined',
      { r: { strategy: 'fallback', targets: [{ model: 'route/nope' }] } },
      /^FILE:\d+:\d+: route 'r' names the route 'nope', which is not defined$/,
    ],
    [
      'a target naming a route that only an object has (constructor)',
      { r: { strategy: 'fallback', targets: [{ model: 'route/constructor' }] } },
      /^FILE:\d+:\d+: route 'r' names the route 'constructor', which is not defined$/,
    ],
    [
      'a loop',
      { a: { strategy: 'fallback', targets: [{ model: 'route/b' }] }, b: { strategy: 'fallback', targets: [{ model: 'acme/small' }, { model: 'route/a' }] } },
      /^FILE:\d+:\d+: routes form a loop: route\/a → route\/b → route\/a$/,
    ],
    [
      'a weight of 0',
      { r: { strategy: 'weighted', targets: [{ model: 'acme/small', weight: 0 }] } },
      /^FILE:\d+:\d+: routes\.r\.targets\.0\.weight: must be above 0$/,
    ],
    [
      'a negative weight',
      { r: { strategy: 'weighted', targets: [{ model: 'acme/small', weight: -1 }] } },
      /^FILE:\d+:\d+: routes\.r\.targets\.0\.weight: must be above 0$/,
    ],
    [
      'weights on a fallback route',
      { r: { strategy: 'fallback', targets: [{ model: 'acme/small', weight: 2 }] } },
      /^FILE:\d+:\d+: routes\.r\.strategy: weight is for a weighted route/,
    ],
    ['an unknown strategy', { r: { strategy: 'cheapest', targets: [{ model: 'acme/small' }] } }, /^FILE:\d+:\d+: routes\.r\.strategy: /],
    ['no targets', { r: { strategy: 'fallback', targets: [] } }, /^FILE:\d+:\d+: routes\.r\.targets: /],
    ['a name with capitals', { Smart: { strategy: 'fallback', targets: [{ model: 'acme/small' }] } }, /^FILE:\d+:\d+: routes\.Smart: a route name is lower-case/],
  ])('refuses %s with one line naming where it is', (_name, routes, expected) => {
    expect(refusal(routes)).toMatch(expected);
  });

  it('a weighted target keeps a chance: one whose share of its route would round away (nested, or beside a huge weight) is refused at its line', () => {
    // Each route fine on its own, but 1e-5 of a target weighing 1e-320 is below the smallest number: 0 once computed.
    const nested = {
      inner: { strategy: 'weighted', targets: [{ model: 'acme/small', weight: 1 }, { model: 'acme/large', weight: 1e-5 }] },
      outer: { strategy: 'weighted', targets: [{ model: 'local/echo', weight: 1e-320 }, { model: 'route/inner', weight: 1e-320 }] },
    };
    expect(refusal({ inner: nested.inner })).toBeNull();
    const message = refusal(nested);
    const file = JSON.stringify({ providers: [provider], routes: nested }, null, 2);
    const line = file.split('\n').findIndex((text) => text.includes('"route/inner"')) + 1;
    expect(message).toMatch(new RegExp(`^FILE:${line}:\\d+: route 'outer' would send 'acme/large' \\(through route/inner\\) a share of 0 of its requests`));
    expect(message).toMatch(/raise its weight/);

    // Flat, beside a weight so large that adding it changes nothing: never picked by the rotation.
    expect(refusal({ r: { strategy: 'weighted', targets: [{ model: 'acme/small', weight: 1e20 }, { model: 'acme/large', weight: 1 }] } })).toMatch(
      /^FILE:\d+:\d+: route 'r' would send 'acme\/large' a share of 1e-20 of its requests, below one in a million/,
    );
    // Weights that add up past the largest number.
    expect(refusal({ r: { strategy: 'weighted', targets: [{ model: 'acme/small', weight: 1e308 }, { model: 'acme/large', weight: 1e308 }] } })).toMatch(/route 'r' would send 'acme\/small' a share of 0/);
    // One in a thousand is kept, nested too.
    expect(refusal({ inner: { strategy: 'weighted', targets: [{ model: 'acme/small', weight: 999 }, { model: 'acme/large', weight: 1 }] }, outer: { strategy: 'weighted', targets: [{ model: 'route/inner' }] } })).toBeNull();
    // A fallback route ignores weights: an inner weighted route's shares are checked on that route only.
    expect(refusal({ r: { strategy: 'fallback', targets: [{ model: 'acme/small' }, { model: 'acme/large' }] } })).toBeNull();
  });

  it('points at the line of the bad target', () => {
    // Pretty-printed: the second target's model is on its own line.
    const message = refusal({ r: { strategy: 'fallback', targets: [{ model: 'acme/small' }, { model: 'acme/huge' }] } });
    const file = JSON.stringify({ providers: [provider], routes: { r: { strategy: 'fallback', targets: [{ model: 'acme/small' }, { model: 'acme/huge' }] } } }, null, 2);
    const line = file.split('\n').findIndex((text) => text.includes('"acme/huge"')) + 1;
    expect(message).toMatch(new RegExp(`^FILE:${line}:\\d+: `));
  });

  it('a provider cannot take the id route', () => {
    const file = writeProvidersFile({ providers: [{ ...provider, id: 'route' }] });
    expect(() => gatewayFromConfig({}, file)).toThrow(/providers\.0\.id: route is the prefix of routes/);
  });

  it('the server refuses to start on a bad route, before opening anything', async () => {
    const file = writeProvidersFile({ providers: [provider], routes: { r: { strategy: 'fallback', targets: [{ model: 'acme/huge' }] } } });
    await expect(startServer({ dbPath: ':memory:', port: 0, providersFile: file, env: {}, log: () => {} })).rejects.toThrow(ProvidersConfigError);
  });
});
