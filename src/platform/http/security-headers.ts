import type { ServerResponse } from 'node:http';
import fastifyHelmet from '@fastify/helmet';
import Fastify from 'fastify';

/**
 * The headers every response carries (API-MAP "Sessions, sockets and hardening"), also the ones
 * written before any route or hook runs (a malformed URL, a request the HTTP parser refuses).
 */
export const BASE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'strict-origin-when-cross-origin',
  'X-Frame-Options': 'DENY',
};

/**
 * The Content-Security-Policy of the web app's pages and files (the API's answers have one that
 * forbids everything: they are never rendered). Scripts only from this origin and never inline:
 * the built index.html loads its module from a file. Mantine writes inline styles; avatars and logos are http(s) URLs from anywhere; the
 * two-factor QR code is a data: image; Socket.IO and the API are this origin ('self' covers ws:).
 */
export function contentSecurityPolicy(https: boolean): Record<string, string[]> {
  return {
    'default-src': ["'self'"],
    'base-uri': ["'self'"],
    'script-src': ["'self'"],
    'script-src-attr': ["'none'"],
    'style-src': ["'self'", "'unsafe-inline'"],
    'img-src': ["'self'", 'data:', 'https:', ...(https ? [] : ['http:'])],
    'font-src': ["'self'", 'data:'],
    'connect-src': ["'self'"],
    'object-src': ["'none'"],
    'form-action': ["'self'"],
    'frame-ancestors': ["'none'"],
    // Behind https every subresource is upgraded; over plain http (development) it must not be.
    ...(https ? { 'upgrade-insecure-requests': [] } : {}),
  };
}

/** A header list written as is on every answer. */
export type HeaderList = ReadonlyArray<readonly [name: string, value: string]>;

/** The security headers of each kind of answer, computed once at start. */
export interface SecurityHeaders {
  /** The web app's pages and files: everything helmet gives, with the app's Content-Security-Policy. */
  document: HeaderList;
  /**
   * The API's answers (JSON and stored files), the operations endpoints and Socket.IO: never a page
   * a browser renders, so their policy forbids everything (`default-src 'none'`) and the headers
   * that only mean something to a document (COOP, Origin-Agent-Cluster, X-XSS-Protection,
   * X-DNS-Prefetch-Control, X-Download-Options, X-Permitted-Cross-Domain-Policies) are left out:
   * fewer bytes on every API answer, the same protection.
   */
  api: HeaderList;
  /**
   * The probes' answers (`/health`, `/ready`: a fixed JSON status, no data, read by load
   * balancers all day): the three headers every answer carries (and HSTS behind https), nothing
   * more.
   */
  probe: HeaderList;
}

type HelmetOptions = Parameters<typeof fastifyHelmet>[1];

/** The headers @fastify/helmet writes on an answer under `options`, with the required base ones checked. */
async function helmetHeaders(options: HelmetOptions): Promise<HeaderList> {
  const probe = Fastify({ logger: false });
  await probe.register(fastifyHelmet, { global: true, ...options });
  let written: Record<string, unknown> = {};
  probe.get('/', (_request, reply) => {
    written = reply.raw.getHeaders();
    return '';
  });
  try {
    await probe.inject({ method: 'GET', url: '/' });
  } finally {
    await probe.close();
  }
  const list = Object.entries(written).map(([name, value]) => [name, String(value)] as const);
  for (const [name, value] of Object.entries(BASE_SECURITY_HEADERS)) {
    if (list.find(([n]) => n === name.toLowerCase())?.[1] !== value) throw new Error(`helmet does not write ${name}: ${value}`);
  }
  return list;
}

/**
 * The headers @fastify/helmet gives each kind of answer under this configuration (API-MAP
 * "Sessions, sockets and hardening"; CSP, HSTS behind https...), computed once at start: helmet
 * builds the same values for every request, so the app writes them from these lists
 * (`writeHeaders`) instead of running helmet's middleware per request.
 */
export async function securityHeaders(publicUrl: string): Promise<SecurityHeaders> {
  const https = new URL(publicUrl).protocol === 'https:';
  const common = {
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
    // Only a deployment served over https may tell browsers to insist on it.
    strictTransportSecurity: https ? { maxAge: 31_536_000, includeSubDomains: true } : false,
  } satisfies HelmetOptions;
  const onlyTheRequired = {
    contentSecurityPolicy: false,
    crossOriginOpenerPolicy: false,
    crossOriginResourcePolicy: false,
    originAgentCluster: false,
    xDnsPrefetchControl: false,
    xDownloadOptions: false,
    xPermittedCrossDomainPolicies: false,
    xXssProtection: false,
  } satisfies HelmetOptions;
  const [document, api, probe] = await Promise.all([
    helmetHeaders({ ...common, contentSecurityPolicy: { useDefaults: false, directives: contentSecurityPolicy(https) } }),
    helmetHeaders({
      ...common,
      contentSecurityPolicy: { useDefaults: false, directives: { 'default-src': ["'none'"], 'frame-ancestors': ["'none'"] } },
      crossOriginOpenerPolicy: false,
      originAgentCluster: false,
      xDnsPrefetchControl: false,
      xDownloadOptions: false,
      xPermittedCrossDomainPolicies: false,
      xXssProtection: false,
    }),
    helmetHeaders({ ...common, ...onlyTheRequired }),
  ]);
  return { document, api, probe };
}

/** Writes a header list on a response before anything else does (a route may still set its own). */
export function writeHeaders(res: ServerResponse, headers: HeaderList): void {
  for (let i = 0; i < headers.length; i++) res.setHeader(headers[i]![0], headers[i]![1]);
}
