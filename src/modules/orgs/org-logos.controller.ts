import { Controller, Delete, Get, HttpCode, Put, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ORG_WIDE_ROLES } from '../../contracts/roles.js';
import { CurrentPrincipal, OrgRoles, RouteOrg } from '../../platform/auth/auth.decorators.js';
import type { Principal } from '../../platform/auth/principal.js';
import { Endpoint, ValidParams, ValidQuery } from '../../platform/http/endpoint.js';
import { formatBytes, readUploadedFile } from '../../platform/http/upload.js';
import type { OrgScope } from '../../platform/tenancy/org-scope.js';
import { MAX_LOGO_BYTES, MAX_LOGO_PIXELS } from './logo-image.js';
import { OrgLogosService } from './org-logos.service.js';
import { OrgDtoSchema, OrgIdParamsSchema } from './orgs.schemas.js';

const TAGS = ['orgs'];
/** Who edits the org's info (spec 5.1, 4.2, 4.6): the wizard's AMs and superadmins, the org's owners and admins (Phase 2 and settings). */
const EDITORS = { roles: ['owner', 'admin'], platformRoles: ['account_manager', 'superadmin'] } as const;
/** Who sees the org (as GET /orgs/:orgId): its members and the staff that act on every org. */
const READERS = { roles: ['owner', 'admin', 'member', 'billing'], platformRoles: [...ORG_WIDE_ROLES] } as const;
const VersionQuery = z.object({ v: z.string().max(64).optional().describe("The logo version of the org record's logoUrl: a new address per upload, for caches") });
const UploadBody = z.object({ file: z.string().meta({ format: 'binary' }).describe('The image: PNG, JPEG or WebP, sniffed from its bytes') });
const EXTENSIONS: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp' };

/**
 * The org's logo (spec 2.1 "logo: image"): an upload, not an address. The record's `logoUrl`
 * names the GET route (with a version), which needs a token like every org read.
 */
@Controller('orgs/:orgId/logo')
export class OrgLogosController {
  constructor(private readonly logos: OrgLogosService) {}

  @Get()
  @OrgRoles({ roles: [...READERS.roles], platformRoles: [...READERS.platformRoles] })
  @Endpoint({
    summary: "The org's logo image, for its members and the staff who see the org",
    description:
      'Answers the stored bytes with the type sniffed on upload (image/png, image/jpeg or image/webp), `X-Content-Type-Options: nosniff`, a sandboxing Content-Security-Policy, `Cache-Control: private, max-age=3600` and an ETag (If-None-Match answers 304). 404 when the org has no logo.',
    tags: TAGS,
    params: OrgIdParamsSchema,
    query: VersionQuery,
    response: { raw: 'image/*', schema: z.string().meta({ format: 'binary' }) },
    errors: [404],
  })
  async read(
    @ValidParams() _p: z.infer<typeof OrgIdParamsSchema>,
    @ValidQuery() _q: z.infer<typeof VersionQuery>,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
    @RouteOrg() scope: OrgScope,
  ): Promise<void> {
    const logo = await this.logos.find(scope);
    const etag = `"${logo.id}"`;
    reply.header('cache-control', 'private, max-age=3600').header('vary', 'Authorization').header('etag', etag).header('x-content-type-options', 'nosniff');
    const wanted = req.headers['if-none-match'];
    if (typeof wanted === 'string' && wanted.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag)) {
      await reply.status(304).send();
      return;
    }
    const data = await this.logos.bytes(logo);
    await reply
      .status(200)
      .header('content-type', logo.contentType)
      .header('content-length', String(data.length))
      .header('content-disposition', `inline; filename="logo.${EXTENSIONS[logo.contentType] ?? 'img'}"`)
      .header('content-security-policy', "default-src 'none'; sandbox")
      .send(data);
  }

  @Put()
  @HttpCode(200)
  @OrgRoles({ roles: [...EDITORS.roles], platformRoles: [...EDITORS.platformRoles] })
  @Endpoint({
    summary: "Upload or replace the org's logo (multipart/form-data, one file part named `file`)",
    description: `PNG, JPEG or WebP, told by the bytes (the declared type and name are ignored; SVG is refused): at most ${formatBytes(MAX_LOGO_BYTES)} and ${MAX_LOGO_PIXELS}×${MAX_LOGO_PIXELS} pixels. Another image type, a file that is not an image, or no \`file\` part: 400 \`validation_failed\` on field \`file\`; a larger file: 413 \`payload_too_large\`; a body that is not multipart/form-data: 415 \`unsupported_media_type\`. Answers the org with its new logoUrl.`,
    tags: TAGS,
    params: OrgIdParamsSchema,
    body: UploadBody,
    bodyType: 'multipart/form-data',
    response: OrgDtoSchema,
    errors: [404, 413, 415],
  })
  async upload(@CurrentPrincipal() actor: Principal, @ValidParams() _p: z.infer<typeof OrgIdParamsSchema>, @Req() req: FastifyRequest, @RouteOrg() scope: OrgScope) {
    const file = await readUploadedFile(req, { field: 'file', maxBytes: MAX_LOGO_BYTES, what: 'the logo' });
    return this.logos.replace(actor, scope, file.data);
  }

  @Delete()
  @HttpCode(200)
  @OrgRoles({ roles: [...EDITORS.roles], platformRoles: [...EDITORS.platformRoles] })
  @Endpoint({ summary: "Remove the org's logo (an org without one answers the same)", tags: TAGS, params: OrgIdParamsSchema, response: OrgDtoSchema, errors: [404] })
  remove(@CurrentPrincipal() actor: Principal, @ValidParams() _p: z.infer<typeof OrgIdParamsSchema>, @RouteOrg() scope: OrgScope) {
    return this.logos.remove(actor, scope);
  }
}
