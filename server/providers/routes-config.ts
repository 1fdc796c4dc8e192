import { z } from 'zod';

/** How a route picks among its targets. */
export type RouteStrategy = 'fallback' | 'weighted' | 'latency';

/** A route of the providers file, its targets resolved to model ids (a route naming a route is flattened). */
export interface RouteDefinition {
  /** `route/<name>`. */
  id: string;
  strategy: RouteStrategy;
  targets: { model: string; weight: number }[];
}

/** The prefix of a route's id: `route/<name>` keeps the `<provider>/<model>` form of model ids. */
export const ROUTE_PREFIX = 'route/';

export const isRouteId = (id: string) => id.startsWith(ROUTE_PREFIX);

const Target = z.strictObject({
  /** `<provider>/<model>`, or `route/<name>` of another route. */
  model: z.string().min(1).regex(/^[^/\s]+\/\S+$/, 'must be <provider>/<model> or route/<name>'),
  /** Only for `weighted`: a share of the requests, relative to the other targets. */
  weight: z.number().positive('must be above 0').optional(),
});

export const RouteConfig = z
  .strictObject({
    strategy: z.enum(['fallback', 'weighted', 'latency']),
    targets: z.array(Target).min(1),
  })
  .refine((route) => route.strategy === 'weighted' || route.targets.every((t) => t.weight === undefined), {
    message: 'weight is for a weighted route (fallback tries its targets in order, latency the quickest first)',
    path: ['strategy'],
  });
export type RouteConfig = z.infer<typeof RouteConfig>;

const ROUTE_NAME = /^[a-z0-9][a-z0-9._-]*$/;
/** Routes by name; a bad name is reported at the name itself (`routes.<name>`). */
export const RoutesConfig = z.record(z.string(), RouteConfig).superRefine((routes, context) => {
  for (const name of Object.keys(routes)) {
    if (!ROUTE_NAME.test(name)) context.addIssue({ code: 'custom', path: [name], message: 'a route name is lower-case letters, digits, ".", "-" or "_"' });
  }
});

/**
 * The routes of a providers file, checked against the models that exist: every target names a
 * model of a configured provider or another route, routes form no loop. A route that names a
 * route takes its targets in place (its weight shared among them). `where(path)` names the line
 * of a bad value; the error is one line, thrown as `fail` makes it.
 */
export function resolveRoutes(
  routes: Record<string, RouteConfig>,
  modelExists: (id: string) => boolean,
  where: (path: (string | number)[]) => string,
  fail: (message: string) => Error,
): RouteDefinition[] {
  const flattened = new Map<string, { model: string; weight: number }[]>();
  const flatten = (name: string, trail: string[]): { model: string; weight: number }[] => {
    const done = flattened.get(name);
    if (done) return done;
    const route = routes[name];
    if (!route) throw fail(`${where(['routes'])}: no route '${name}'`);
    const targets = route.targets.flatMap((target, index): { model: string; weight: number; index: number; via?: string }[] => {
      const weight = target.weight ?? 1;
      if (!isRouteId(target.model)) {
        if (!modelExists(target.model)) {
          throw fail(`${where(['routes', name, 'targets', index, 'model'])}: route '${name}' names the model '${target.model}', which no configured provider serves`);
        }
        return [{ model: target.model, weight, index }];
      }
      const inner = target.model.slice(ROUTE_PREFIX.length);
      if (!Object.hasOwn(routes, inner)) throw fail(`${where(['routes', name, 'targets', index, 'model'])}: route '${name}' names the route '${inner}', which is not defined`);
      if (trail.includes(inner)) {
        throw fail(`${where(['routes', name, 'targets', index, 'model'])}: routes form a loop: ${[...trail, inner].map((n) => ROUTE_PREFIX + n).join(' → ')}`);
      }
      const innerTargets = flatten(inner, [...trail, inner]);
      const innerTotal = innerTargets.reduce((sum, x) => sum + x.weight, 0);
      // The share first (at most 1), then the weight: no product past the largest number.
      return innerTargets.map((t) => ({ model: t.model, weight: weight * (t.weight / innerTotal), index, via: target.model }));
    });
    // A model named twice is tried once, where it first comes.
    const unique = targets.filter((target, index) => targets.findIndex((t) => t.model === target.model) === index);
    if (route.strategy === 'weighted') refuseVanishingShares(name, unique, (index) => where(['routes', name, 'targets', index, 'model']), fail);
    const kept = unique.map(({ model, weight }) => ({ model, weight }));
    flattened.set(name, kept);
    return kept;
  };
  return Object.entries(routes).map(([name, route]) => ({ id: `${ROUTE_PREFIX}${name}`, strategy: route.strategy, targets: flatten(name, [name]) }));
}

/**
 * The least share of a weighted route's requests a target may have: below it, floating point
 * takes it away (a nested weight's product rounds to 0; beside a weight 1e16 times larger, the
 * rotation's sums no longer move), so a target given a weight would never be tried first.
 */
export const LEAST_SHARE = 1e-6;

/** Refuses, at the line of the target it came through, a target whose share of the route is below LEAST_SHARE (or is 0 or not a number). */
function refuseVanishingShares(
  name: string,
  targets: { model: string; weight: number; index: number; via?: string }[],
  lineOf: (index: number) => string,
  fail: (message: string) => Error,
): void {
  const total = targets.reduce((sum, target) => sum + target.weight, 0);
  for (const target of targets) {
    const share = target.weight / total;
    if (share >= LEAST_SHARE) continue;
    const through = target.via ? ` (through ${target.via})` : '';
    throw fail(
      `${lineOf(target.index)}: route '${name}' would send '${target.model}'${through} a share of ${Number.isFinite(share) ? share : 0} of its requests, ` +
        'below one in a million (floating point would round it away): raise its weight or take it out',
    );
  }
}
