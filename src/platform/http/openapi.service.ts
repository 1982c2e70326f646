import { Injectable } from '@nestjs/common';
import { HTTP_CODE_METADATA, METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { RequestMethod } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { OpenAPIRegistry, OpenApiGeneratorV31, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { ErrorBodySchema } from '../../contracts/errors.js';
import { isClientRole, type PlatformRole } from '../../contracts/roles.js';
import { IS_PUBLIC, OPEN_WHILE_SUSPENDED, ORG_ROLES, PLATFORM_ROLES, VENDOR_WEBHOOK, type OrgRolesPolicy } from '../auth/auth.decorators.js';
import { ENDPOINT, isRawResponse, type EndpointResponse, type EndpointSpec } from './endpoint.js';
import { isProbe } from './probe.js';

export interface DiscoveredRoute {
  method: string;
  /** Full path in OpenAPI form, e.g. `/api/orgs/{orgId}`. */
  path: string;
  isPublic: boolean;
  /** Marked @Probe(): answered before the pipeline, so never throttled. */
  probe: boolean;
  /** Marked @VendorWebhook: a vendor's webhook, outside the per-IP throttle. */
  vendorWebhook: boolean;
  /** Marked @OpenWhileSuspended: a client user of a suspended org still reaches it (spec 3.6). */
  openWhileSuspended: boolean;
  platformRoles?: PlatformRole[];
  orgRoles?: OrgRolesPolicy;
  spec?: EndpointSpec;
  /** The success status the route answers: `@Endpoint` status, else Nest's `@HttpCode`, else 201 for POST and 200. */
  status: number;
  controller: string;
  handler: string;
}

const API_PREFIX = '/api';

const join = (...parts: string[]) =>
  (
    '/' +
    parts
      .map((p) => p.replace(/^\/+|\/+$/g, ''))
      .filter(Boolean)
      .join('/')
  ).replace(/:(\w+)/g, '{$1}');

const words = (text: string) => text.split(/[^A-Za-z0-9]+/).filter(Boolean);
const capital = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

/** `ChannelsController.listQuarantine` -> `channelsListQuarantine`. */
function operationIdOf(controller: string, handler: string): string {
  const name = [...words(controller.replace(/Controller$/, '')), ...words(handler)].map(capital).join('');
  return name.charAt(0).toLowerCase() + name.slice(1);
}

/** The path's own words, for a handler mounted on several paths: `/api/am/specialists` -> `AmSpecialists`. */
const pathWords = (path: string) =>
  path
    .split('/')
    .filter((segment) => segment && `/${segment}` !== API_PREFIX)
    .map((segment) => (segment === '*' ? 'Any' : segment.replace(/^\{(\w+)\}$/, 'by-$1')))
    .flatMap(words)
    .map(capital)
    .join('');

const STATUS_TEXT: Record<number, string> = {
  400: 'Invalid input (`validation_failed` lists the fields) or a refused rule (`bad_request`)',
  401: 'No valid token (`unauthorized`)',
  403: 'Role or ownership refuses (`forbidden`)',
  404: 'Unknown id, or an id of another org (`not_found`)',
  409: 'State refuses (`conflict`)',
  410: 'Gone',
  429: 'Rate limit (`rate_limit`), with X-RateLimit-* and Retry-After headers',
  503: 'Backpressure (`backpressure`) with Retry-After',
};

const SUSPENDED_TEXT = "a client user's org is suspended for non-payment (`org_suspended`, spec 3.6)";

/** A client user may call the route, and the access gate answers it 403 `org_suspended` while their org is suspended. */
const suspendable = (route: DiscoveredRoute) => !route.isPublic && !route.openWhileSuspended && (!route.platformRoles || route.platformRoles.some(isClientRole));

function responseDoc(status: number, response: EndpointResponse): RouteConfig['responses'][number] {
  if (response === null) return { description: status === 204 ? 'No content' : 'Success' };
  const [type, schema] = isRawResponse(response) ? [response.raw, response.schema ?? z.string()] : ['application/json', response];
  return { description: 'Success', content: { [type]: { schema } } };
}

/** Every route of the app, read from Nest's metadata; the OpenAPI document is generated from it. */
@Injectable()
export class RouteCatalog {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
  ) {}

  routes(): DiscoveredRoute[] {
    const out: DiscoveredRoute[] = [];
    for (const wrapper of this.discovery.getControllers()) {
      const instance = wrapper.instance as object | undefined;
      if (!instance || !wrapper.metatype) continue;
      const controllerPaths = ([] as string[]).concat((Reflect.getMetadata(PATH_METADATA, wrapper.metatype) as string | string[] | undefined) ?? '');
      const proto = Object.getPrototypeOf(instance) as Record<string, (...args: unknown[]) => unknown>;
      for (const name of this.scanner.getAllMethodNames(proto)) {
        const handler = proto[name]!;
        const routePath = Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined;
        if (routePath === undefined) continue;
        const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as number]!.toLowerCase();
        const targets = [handler, wrapper.metatype];
        const spec = Reflect.getMetadata(ENDPOINT, handler) as EndpointSpec | undefined;
        const status = spec?.status ?? (Reflect.getMetadata(HTTP_CODE_METADATA, handler) as number | undefined) ?? (method === 'post' ? 201 : 200);
        for (const cp of controllerPaths) {
          for (const rp of ([] as string[]).concat(routePath)) {
            out.push({
              method,
              path: join(API_PREFIX, cp, rp),
              isPublic: this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets) === true,
              probe: isProbe(handler),
              vendorWebhook: this.reflector.getAllAndOverride<boolean>(VENDOR_WEBHOOK, targets) === true,
              openWhileSuspended: this.reflector.getAllAndOverride<boolean>(OPEN_WHILE_SUSPENDED, targets) === true,
              platformRoles: this.reflector.getAllAndOverride<PlatformRole[]>(PLATFORM_ROLES, targets),
              orgRoles: this.reflector.getAllAndOverride<OrgRolesPolicy>(ORG_ROLES, targets),
              spec,
              status,
              controller: wrapper.name as string,
              handler: name,
            });
          }
        }
      }
    }
    return out;
  }

  openApiDocument(info: { title: string; version: string; serverUrl: string }) {
    const registry = new OpenAPIRegistry();
    registry.registerComponent('securitySchemes', 'bearer', { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
    const errorSchema = ErrorBodySchema;
    const operationIds = new Set<string>();
    for (const route of this.routes()) {
      // A handler's first path keeps the plain id; an alias path of the same handler names its path.
      let operationId = operationIdOf(route.controller, route.handler);
      if (operationIds.has(operationId)) operationId += `Via${pathWords(route.path)}`;
      if (operationIds.has(operationId)) throw new Error(`Two routes share the OpenAPI operationId ${operationId}`);
      operationIds.add(operationId);
      const spec = route.spec;
      const status = route.status;
      const responses: RouteConfig['responses'] = {
        [status]: responseDoc(status, spec?.response ?? null),
      };
      const errorCodes = new Set<number>([400, ...(route.probe ? [] : [429]), ...(spec?.errors ?? [])]);
      if (!route.isPublic) errorCodes.add(401);
      if (route.platformRoles || route.orgRoles || suspendable(route)) errorCodes.add(403);
      for (const code of errorCodes) {
        const description = code === 403 && suspendable(route) ? `${STATUS_TEXT[403]}, or ${SUSPENDED_TEXT}` : (STATUS_TEXT[code] ?? 'Error');
        responses[code] = { description, content: { 'application/json': { schema: errorSchema } } };
      }
      const roles = [
        route.platformRoles ? `Platform roles: ${route.platformRoles.join(', ')}.` : '',
        route.orgRoles ? `Org roles: ${route.orgRoles.roles.join(', ')}.` : '',
        route.isPublic ? 'Public (no token).' : '',
      ]
        .filter(Boolean)
        .join(' ');
      const pathParams = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
      const params = (spec?.params as z.ZodObject | undefined) ?? (pathParams.length ? z.object(Object.fromEntries(pathParams.map((p) => [p, z.string()]))) : undefined);
      registry.registerPath({
        method: route.method as RouteConfig['method'],
        path: route.path,
        operationId,
        summary: spec?.summary ?? `${route.controller}.${route.handler}`,
        description: [spec?.description, roles].filter(Boolean).join('\n\n') || undefined,
        tags: spec?.tags ?? [route.controller.replace(/Controller$/, '')],
        security: route.isPublic ? [] : [{ bearer: [] }],
        request: {
          params,
          query: spec?.query as z.ZodObject | undefined,
          body: spec?.body ? { content: { [spec.bodyType ?? 'application/json']: { schema: spec.body } } } : undefined,
          headers: spec?.headers ? z.object(Object.fromEntries(Object.entries(spec.headers).map(([h, d]) => [h, z.string().describe(d)]))) : undefined,
        },
        responses,
      });
    }
    // 3.1: a nullable or unknown schema is a JSON Schema type list, not 3.0's `nullable` without a `type`.
    const generator = new OpenApiGeneratorV31(registry.definitions);
    return generator.generateDocument({
      openapi: '3.1.0',
      info: { title: info.title, version: info.version, description: 'Generated from the zod schemas of each route.' },
      servers: [{ url: info.serverUrl }],
    });
  }
}
