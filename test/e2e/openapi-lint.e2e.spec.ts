import { createConfig, lintFromString, type NormalizedProblem } from '@redocly/openapi-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * The OpenAPI document the app serves, linted with Redocly's `recommended` ruleset (what
 * `redocly lint` runs by default): no error, and only the warnings listed here, each with its reason.
 */
const ACCEPTED_WARNINGS: Record<string, string> = {
  // The service declares no license.
  'info-license': 'no license',
  // API-MAP fixes both paths: /api/admin/members/invitations/{token} and /api/admin/members/{id}/role.
  'no-ambiguous-paths': 'paths fixed by API-MAP',
  // The renamed /api/environment-profiles routes answer only 308 (spec 9.2), until they are removed.
  'operation-2xx-response': 'redirect-only routes',
};

type Operation = { operationId?: string; deprecated?: boolean; responses: Record<string, unknown> };
type Document = { openapi: string; servers: Array<{ url: string }>; paths: Record<string, Record<string, Operation>> };

const readable = (problems: NormalizedProblem[]) =>
  problems
    .slice(0, 20)
    .map((p) => `${p.severity} ${p.ruleId} at ${p.location[0]?.pointer ?? '?'}: ${p.message}`)
    .join('\n');

let app: TestApp;
let document: Document;
let problems: NormalizedProblem[];
beforeAll(async () => {
  // A public address as production has it: the servers entry is this URL.
  app = await startTestApp({ env: { PUBLIC_URL: 'https://service.acme.test' } });
  document = (await app.get('/api/openapi.json')).body as Document;
  const config = await createConfig({ extends: ['recommended'] });
  problems = await lintFromString({ source: JSON.stringify(document), absoluteRef: 'openapi.json', config });
});
afterAll(async () => {
  await app?.close();
});

describe('OpenAPI document', () => {
  it('is OpenAPI 3.1 and passes redocly lint (recommended) without an error', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.servers).toEqual([{ url: 'https://service.acme.test' }]);
    const errors = problems.filter((p) => p.severity === 'error');
    expect(errors.length, `${errors.length} lint errors, the first:\n${readable(errors)}`).toBe(0);
  });

  it('has no lint warning besides the accepted ones', () => {
    const warnings = problems.filter((p) => p.severity === 'warn' && !ACCEPTED_WARNINGS[p.ruleId]);
    expect(warnings.length, `${warnings.length} lint warnings, the first:\n${readable(warnings)}`).toBe(0);
    const redirects = problems.filter((p) => p.ruleId === 'operation-2xx-response').map((p) => p.location[0]?.pointer ?? '');
    expect(redirects.every((pointer) => pointer.startsWith('#/paths/~1api~1environment-profiles'))).toBe(true);
  });

  it('names every operation with a unique camelCase operationId from its controller and handler', () => {
    const operations = Object.entries(document.paths).flatMap(([path, byMethod]) => Object.entries(byMethod).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, id: op.operationId })));
    expect(operations.filter((op) => !op.id).map((op) => op.key)).toEqual([]);
    expect(operations.filter((op) => !/^[a-z][A-Za-z0-9]*$/.test(op.id!)).map((op) => `${op.key}: ${op.id}`)).toEqual([]);
    const ids = operations.map((op) => op.id);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    expect(document.paths['/api/auth/login']!.post!.operationId).toBe('authLogin');
    // A handler on two paths: the first keeps the plain id, the alias names its path.
    expect(document.paths['/api/docs']!.get!.operationId).toBe('docsDocs');
    expect(document.paths['/api/openapi.json']!.get!.operationId).toBe('docsDocsViaOpenapiJson');
  });

  it('documents the webhooks and sign-in with the 200 they answer', () => {
    const webhooks = Object.entries(document.paths).filter(([path]) => /^\/api\/(channels\/[a-z-]+\/|billing\/provider\/webhook)/.test(path));
    expect(webhooks.length).toBeGreaterThanOrEqual(7);
    for (const [path, byMethod] of [...webhooks, ['/api/auth/login', document.paths['/api/auth/login']!] as const]) {
      const codes = Object.keys(byMethod.post!.responses);
      expect(codes, path).toContain('200');
      expect(codes, path).not.toContain('201');
    }
  });
});

describe('OpenAPI document: the access gate', () => {
  const forbidden = (path: string, method = 'get') => (document.paths[path]![method]!.responses['403'] as { description: string } | undefined)?.description;

  it("documents 403 org_suspended on the routes a suspended org's client users are refused (spec 3.6), and only there", () => {
    for (const path of ['/api/client/trial-info', '/api/client/specialists', '/api/orgs/{orgId}/quota', '/api/admin/members', '/api/conversations']) {
      expect(forbidden(path), path).toContain('`org_suspended`');
    }
    // Open while suspended (sign-in, the caller, billing settings), or staff only.
    for (const path of ['/api/auth/me', '/api/orgs/{orgId}/billing', '/api/am/orgs']) expect(forbidden(path) ?? '', path).not.toContain('org_suspended');
    expect(forbidden('/api/am/orgs')).toContain('`forbidden`');
  });
});
