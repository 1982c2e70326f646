import fastifyHelmet from '@fastify/helmet';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';

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
 * The Content-Security-Policy of the web app (and of every other answer, where it only forbids
 * more). Scripts only from this origin and never inline: the built index.html loads its module
 * from a file. Mantine writes inline styles; avatars and logos are http(s) URLs from anywhere; the
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

/** Registers @fastify/helmet on every route (API, errors, 404s, the web app and its files). */
export async function installSecurityHeaders(app: NestFastifyApplication, publicUrl: string): Promise<void> {
  const https = new URL(publicUrl).protocol === 'https:';
  await app.register(fastifyHelmet, {
    global: true,
    contentSecurityPolicy: { useDefaults: false, directives: contentSecurityPolicy(https) },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
    // Only a deployment served over https may tell browsers to insist on it.
    strictTransportSecurity: https ? { maxAge: 31_536_000, includeSubDomains: true } : false,
  });
}
