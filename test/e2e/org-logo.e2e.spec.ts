import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsersService } from '../../src/modules/users/index.js';
import { errorShapeProblem } from '../support/error-shape.js';
import { rawRequest, type RawAnswer } from '../support/http.js';
import { jpeg, multipartFile, png, webp } from '../support/images.js';
import { codeMailedBy } from '../support/mail.js';
import { demoCast, type DemoCast } from '../support/tenants.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { unscopedOrg } from '../../src/platform/tenancy/org-scope.js';

const PASSWORD = 'demo1234';
const MB = 1024 * 1024;

/**
 * The org logo of spec 2.1 ("logo: image"): an upload checked by its bytes, kept in the logo
 * storage, served by the org's own route to those who see the org; the org record names that
 * route (never an address a caller gives).
 */
describe('org logo: upload, replace, remove, sniffing, size, who may (spec 2.1, 4.2, 4.6, 5.1)', () => {
  let app: TestApp;
  let cast: DemoCast;
  const tokens: Record<string, string> = {};

  const logoPath = (orgId: string) => `/api/orgs/${orgId}/logo`;
  const bearer = (token?: string): Record<string, string> => (token ? { authorization: `Bearer ${token}` } : {});
  /** PUT a file as a browser's FormData sends it: the declared type is whatever the sender says. */
  const upload = (orgId: string, token: string | undefined, data: Buffer, declared = 'image/png', filename = 'logo.png') => {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(data)], { type: declared }), filename);
    return rawRequest(app.url + logoPath(orgId), { method: 'PUT', headers: bearer(token), body: form });
  };
  const raw = (method: string, path: string, token?: string, body?: { contentType: string; payload: Buffer | string }) =>
    rawRequest(app.url + path, { method, headers: { ...bearer(token), ...(body ? { 'content-type': body.contentType } : {}) }, body: body?.payload });
  const read = async (path: string, token?: string, headers: Record<string, string> = {}) => {
    const res = await fetch(app.url + path, { headers: { ...bearer(token), ...headers } });
    return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
  };
  const refused = (answer: RawAnswer, status: number, code: string) => {
    expect(answer.status, answer.text).toBe(status);
    expect((answer.body as { code: string }).code).toBe(code);
    expect(errorShapeProblem(answer.status, answer.headers, answer.body)).toBeUndefined();
  };
  const logoFiles = (orgId: string) => {
    const dir = join(app.running.config.dataDir, 'logos', orgId);
    return existsSync(dir) ? readdirSync(dir) : [];
  };
  const orgOf = async (orgId: string) => (await app.get(`/api/orgs/${orgId}`, { token: cast.superadmin })).body as { logoUrl: string | null };

  beforeAll(async () => {
    app = await startTestApp();
    cast = await demoCast(app);
    const users = app.running.app.get(UsersService);
    for (const [role, orgRole, platformRole] of [
      ['admin', 'admin', 'org_admin'],
      ['billing', 'billing', 'org_member'],
    ] as const) {
      const user = await users.create({ email: `${role}@acme.logo.invalid`, name: `Logo ${role}`, platformRole, password: PASSWORD });
      await users.addMembership(unscopedOrg(cast.acmeId, 'test setup'), user.id, orgRole);
      tokens[role] = await app.login(`${role}@acme.logo.invalid`, PASSWORD);
    }
    Object.assign(tokens, {
      superadmin: cast.superadmin,
      account_manager: cast.am,
      owner: cast.owner,
      member: cast.member,
      ai_operator: cast.aiOperator,
      expert: await app.login('expert@platform.demo.invalid', PASSWORD),
    });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('uploads a PNG: the org record names the logo route, which answers the bytes with their type, nosniff and cache headers', async () => {
    const image = png(4, 3);
    const answer = await upload(cast.acmeId, cast.am, image);
    expect(answer.status, answer.text).toBe(200);
    const logoUrl = (answer.body as { logoUrl: string }).logoUrl;
    expect(logoUrl).toMatch(new RegExp(`^/api/orgs/${cast.acmeId}/logo\\?v=[0-9a-f-]{36}$`));
    expect((await orgOf(cast.acmeId)).logoUrl).toBe(logoUrl);
    expect((await app.get(`/api/am/orgs/${cast.acmeId}`, { token: cast.am })).body.logoUrl).toBe(logoUrl);

    const served = await read(logoUrl, cast.member);
    expect(served.status).toBe(200);
    expect(served.bytes.equals(image)).toBe(true);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(served.headers.get('x-content-type-options')).toBe('nosniff');
    expect(served.headers.get('cache-control')).toBe('private, max-age=3600');
    expect(served.headers.get('content-security-policy')).toContain('sandbox');
    const etag = served.headers.get('etag')!;
    expect(etag).toBe(`"${new URL(logoUrl, app.url).searchParams.get('v')}"`);
    const again = await read(logoUrl, cast.member, { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.bytes.length).toBe(0);
    expect(logoFiles(cast.acmeId)).toHaveLength(1);

    const audit = await app.get(`/api/ops/audit?resourceId=${cast.acmeId}&action=org.logo_updated`, { token: cast.superadmin });
    expect(audit.body.items[0]).toMatchObject({ action: 'org.logo_updated', meta: { contentType: 'image/png', size: image.length, width: 4, height: 3 } });
  });

  it('replaces the logo: a new address, the new bytes and type, and the old file gone', async () => {
    const before = (await orgOf(cast.acmeId)).logoUrl ?? ((await upload(cast.acmeId, cast.am, png(2, 2))).body as { logoUrl: string }).logoUrl;
    const image = jpeg(120, 60);
    const answer = await upload(cast.acmeId, cast.owner, image, 'image/jpeg', 'mark.jpg');
    expect(answer.status, answer.text).toBe(200);
    const logoUrl = (answer.body as { logoUrl: string }).logoUrl;
    expect(logoUrl).not.toBe(before);
    const served = await read(logoUrl, cast.owner);
    expect(served.headers.get('content-type')).toBe('image/jpeg');
    expect(served.bytes.equals(image)).toBe(true);
    // The route serves the current logo whatever version is asked: the old address is only a cache key.
    expect((await read(logoPath(cast.acmeId), cast.owner)).bytes.equals(image)).toBe(true);
    expect(logoFiles(cast.acmeId)).toEqual([new URL(logoUrl, app.url).searchParams.get('v')]);
  });

  it('removes the logo: null on the record, 404 on the route, the file gone; removing again answers the same', async () => {
    if ((await orgOf(cast.acmeId)).logoUrl === null) expect((await upload(cast.acmeId, cast.am, png(2, 2))).status).toBe(200);
    const removed = await raw('DELETE', logoPath(cast.acmeId), tokens.admin);
    expect(removed.status, removed.text).toBe(200);
    expect((removed.body as { logoUrl: unknown }).logoUrl).toBeNull();
    expect((await orgOf(cast.acmeId)).logoUrl).toBeNull();
    refused(await raw('GET', logoPath(cast.acmeId), cast.owner), 404, 'not_found');
    expect(logoFiles(cast.acmeId)).toEqual([]);
    const again = await raw('DELETE', logoPath(cast.acmeId), cast.am);
    expect(again.status).toBe(200);
    expect((again.body as { logoUrl: unknown }).logoUrl).toBeNull();
  });

  it('tells the type by the bytes: HTML, SVG, GIF and text are refused whatever they claim; a PNG named JPEG is kept as PNG; WebP is accepted', async () => {
    const bad: Array<[string, Buffer, string, RegExp]> = [
      ['HTML claiming to be a PNG', Buffer.from('<!doctype html><html><script>alert(document.domain)</script></html>'), 'image/png', /must be a PNG, JPEG or WebP/],
      ['SVG', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><rect width="1" height="1"/></svg>'), 'image/svg+xml', /^SVG logos are not accepted/],
      ['SVG claiming to be a PNG', Buffer.from('<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"></svg>'), 'image/png', /^SVG logos are not accepted/],
      [
        'GIF',
        Buffer.from('GIF89a\x01\x00\x01\x00\x80\x00\x00\xff\xff\xff\x00\x00\x00!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;', 'latin1'),
        'image/gif',
        /must be a PNG, JPEG or WebP/,
      ],
      ['text', Buffer.from('hello'), 'image/jpeg', /must be a PNG, JPEG or WebP/],
      ['an empty file', Buffer.alloc(0), 'image/png', /must be a PNG, JPEG or WebP/],
      [
        'a PNG stating a huge canvas',
        (() => {
          const b = png(1, 1);
          b.writeUInt32BE(50_000, 16);
          return b;
        })(),
        'image/png',
        /at most 4096×4096 pixels/,
      ],
    ];
    for (const [what, data, declared, message] of bad) {
      const answer = await upload(cast.acmeId, cast.am, data, declared);
      refused(answer, 400, 'validation_failed');
      expect((answer.body as { details: unknown }).details, what).toEqual([{ field: 'file', message: expect.stringMatching(message) }]);
    }
    expect((await orgOf(cast.acmeId)).logoUrl).toBeNull();
    expect(logoFiles(cast.acmeId)).toEqual([]);

    const disguised = await upload(cast.acmeId, cast.am, png(5, 5), 'image/jpeg', 'logo.jpg');
    expect(disguised.status).toBe(200);
    expect((await read(logoPath(cast.acmeId), cast.am)).headers.get('content-type')).toBe('image/png');
    const lossless = await upload(cast.acmeId, cast.am, webp(64, 32), 'application/octet-stream', 'logo.bin');
    expect(lossless.status).toBe(200);
    expect((await read(logoPath(cast.acmeId), cast.am)).headers.get('content-type')).toBe('image/webp');
  });

  it('takes at most 1 MB (413 above it, nothing stored), and only a multipart form with one file part named "file"', async () => {
    const current = (await orgOf(cast.acmeId)).logoUrl;
    const padded = (size: number) => Buffer.concat([png(8, 8), Buffer.alloc(size - png(8, 8).length)]);
    const over = await upload(cast.acmeId, cast.am, padded(MB + 1));
    refused(over, 413, 'payload_too_large');
    expect((over.body as { message: string }).message).toBe('The logo is larger than 1 MB');
    expect((await orgOf(cast.acmeId)).logoUrl).toBe(current);
    expect(logoFiles(cast.acmeId)).toHaveLength(current ? 1 : 0);
    const atLimit = await upload(cast.acmeId, cast.am, padded(MB));
    expect(atLimit.status, atLimit.text).toBe(200);

    refused(
      await raw('PUT', logoPath(cast.acmeId), cast.am, { contentType: 'application/json', payload: JSON.stringify({ logoUrl: 'https://cdn.example.com/logo.png' }) }),
      415,
      'unsupported_media_type',
    );
    refused(await raw('PUT', logoPath(cast.acmeId), cast.am, { contentType: 'image/png', payload: png(2, 2) }), 415, 'unsupported_media_type');
    const wrongField = await raw('PUT', logoPath(cast.acmeId), cast.am, multipartFile('logo', 'logo.png', 'image/png', png(2, 2)));
    refused(wrongField, 400, 'validation_failed');
    expect((wrongField.body as { details: unknown }).details).toEqual([{ field: 'file', message: expect.stringMatching(/^Required/) }]);
    const two = multipartFile('file', 'a.png', 'image/png', png(2, 2));
    const boundary = two.contentType.split('boundary=')[1]!;
    const second = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="b.png"\r\nContent-Type: image/png\r\n\r\n`);
    const payload = Buffer.concat([two.payload.subarray(0, two.payload.length - `--${boundary}--\r\n`.length), second, png(3, 3), Buffer.from(`\r\n--${boundary}--\r\n`)]);
    refused(await raw('PUT', logoPath(cast.acmeId), cast.am, { contentType: two.contentType, payload }), 413, 'payload_too_large');
    refused(await raw('PUT', logoPath(cast.acmeId), cast.am, { contentType: `multipart/form-data; boundary=${boundary}`, payload: `--${boundary}\r\nbroken` }), 400, 'bad_request');
  });

  it("lets the wizard (account managers, superadmins) and the org's owners and admins edit it; members, billing, Experts and ai_operators cannot; readers are the org's members and org-wide staff", async () => {
    const editors = { superadmin: 200, account_manager: 200, owner: 200, admin: 200, member: 403, billing: 403, expert: 404, ai_operator: 404 } as const;
    for (const [role, status] of Object.entries(editors)) {
      const put = await upload(cast.acmeId, tokens[role], png(2, 2));
      if (status === 200) expect(put.status, `${role} PUT`).toBe(200);
      else refused(put, status, status === 403 ? 'forbidden' : 'not_found');
      const del = await raw('DELETE', logoPath(cast.acmeId), tokens[role]);
      if (status === 200) expect(del.status, `${role} DELETE`).toBe(200);
      else refused(del, status, status === 403 ? 'forbidden' : 'not_found');
    }
    expect((await upload(cast.acmeId, cast.am, png(6, 6))).status).toBe(200);
    const readers = { superadmin: 200, account_manager: 200, ai_operator: 200, owner: 200, admin: 200, member: 200, billing: 200, expert: 404 } as const;
    for (const [role, status] of Object.entries(readers)) {
      const got = await raw('GET', logoPath(cast.acmeId), tokens[role]);
      if (status === 200) expect(got.status, `${role} GET`).toBe(200);
      else refused(got, status, 'not_found');
    }
    for (const method of ['GET', 'PUT', 'DELETE']) refused(await raw(method, logoPath(cast.acmeId)), 401, 'unauthorized');
    refused(await upload(cast.acmeId, 'not-a-token', png(2, 2)), 401, 'unauthorized');
  });

  it("refuses another org's callers on this org's logo (404, nothing changed), and keeps each org's logo its own", async () => {
    const acme = (await orgOf(cast.acmeId)).logoUrl ?? ((await upload(cast.acmeId, cast.am, png(6, 6))).body as { logoUrl: string }).logoUrl;
    refused(await upload(cast.acmeId, cast.hooliOwner, png(9, 9)), 404, 'not_found');
    refused(await raw('DELETE', logoPath(cast.acmeId), cast.hooliOwner), 404, 'not_found');
    refused(await raw('GET', logoPath(cast.acmeId), cast.hooliOwner), 404, 'not_found');
    expect((await orgOf(cast.acmeId)).logoUrl).toBe(acme);

    const hooliImage = png(7, 7, [0, 120, 255]);
    const own = await upload(cast.hooliId, cast.hooliOwner, hooliImage);
    expect(own.status, own.text).toBe(200);
    expect((await read((own.body as { logoUrl: string }).logoUrl, cast.hooliOwner)).bytes.equals(hooliImage)).toBe(true);
    expect((await orgOf(cast.acmeId)).logoUrl).toBe(acme);
    refused(await raw('GET', logoPath(cast.hooliId), cast.owner), 404, 'not_found');

    // An org that does not exist: 404 for staff too, and no file is written.
    const nobody = '00000000-0000-4000-8000-000000000000';
    refused(await upload(nobody, cast.superadmin, png(2, 2)), 404, 'not_found');
    expect(logoFiles(nobody)).toEqual([]);
  });

  it('lets the invited admin set the logo during Phase 2, with the session of the onboarding code', async () => {
    const slug = `logo-${Date.now().toString(36)}`;
    const created = await app.post(
      '/api/am/orgs',
      {
        legalName: 'Logo Phase Two',
        slug,
        industry: 'finance',
        corporateDomains: [`${slug}.example.com`],
        adminEmail: `owner@${slug}.example.com`,
        website: 'https://p2.example.com',
        timezone: 'UTC',
      },
      { token: cast.am },
    );
    expect(created.status).toBe(201);
    const invite = await app.post(`/api/am/orgs/${created.body.id}/invite`, {}, { token: cast.am });
    expect(invite.body.org.status).toBe('pending_client_confirmation');
    const token = new URL(invite.body.onboardingUrl).searchParams.get('token')!;
    const code = await codeMailedBy(app.url, `owner@${slug}.example.com`, async () => expect((await app.post('/api/auth/send-invite-otp', { token })).status).toBe(204));
    const verified = await app.post('/api/auth/verify-invite-otp', { token, code });
    expect(verified.status).toBe(200);
    const image = png(10, 10);
    const answer = await upload(created.body.id, verified.body.token, image);
    expect(answer.status, answer.text).toBe(200);
    expect((await read((answer.body as { logoUrl: string }).logoUrl, cast.am)).bytes.equals(image)).toBe(true);
  });
});
