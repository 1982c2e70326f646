import type { ComponentType } from 'react';
import type { RouteObject } from 'react-router';

/**
 * A route of one page module, downloaded when the route is first matched (route-level code
 * splitting): `{ path, ...page(() => import('./ThePage'), (m) => m.ThePage) }`.
 */
export function page<M>(load: () => Promise<M>, pick: (module: M) => ComponentType): Pick<RouteObject, 'lazy'> {
  return { lazy: async () => ({ Component: pick(await load()) }) };
}
