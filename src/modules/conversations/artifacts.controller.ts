import { Controller, Get, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { INLINE_ATTACHMENT_TYPES } from '../../contracts/conversations.js';
import { Public } from '../../platform/auth/auth.decorators.js';
import { Endpoint, ValidParams, ValidQuery } from '../../platform/http/endpoint.js';
import { ArtifactsService } from './artifacts.service.js';

const Params = z.object({ orgId: z.uuid(), conversationId: z.uuid(), artifactId: z.uuid() });
/** Checked by the service: a missing or malformed one is a link that is not ours (403), never a 400. */
const LinkQuery = z.object({
  expires: z.string().max(40).optional().describe('Seconds since the epoch when the link stops working'),
  sig: z.string().max(200).optional().describe('The signature of the link'),
});

/**
 * Downloads of a conversation's artifacts (spec 4.8 rule 4) through the signed, expiring links the
 * thread views carry (`attachments[].url`). The link is the credential, so the route needs no
 * token; what it answers can never run in the service's origin: a stored type is kept only for
 * plain images, anything else is an `application/octet-stream` attachment, all in a sandbox.
 */
@Controller('orgs/:orgId/conversations/:conversationId/artifacts')
export class ArtifactsController {
  constructor(private readonly artifacts: ArtifactsService) {}

  @Get(':artifactId')
  @Public()
  @Endpoint({
    summary: "Download a message's attachment through the signed link of a thread view (attachments[].url)",
    description:
      'The link (`expires`, `sig`) is made only for a caller who may read the thread, works about 15 minutes and names one org, conversation and artifact: an expired, altered or forged link answers 403, an unknown artifact 404. PNG, JPEG, GIF and WebP images answer with their type (inline); anything else as `application/octet-stream` with `Content-Disposition: attachment`.',
    tags: ['conversations'],
    params: Params,
    query: LinkQuery,
    response: { raw: 'application/octet-stream', schema: z.string().meta({ format: 'binary' }) },
    errors: [403, 404],
  })
  async download(@ValidParams() params: z.infer<typeof Params>, @ValidQuery() query: z.infer<typeof LinkQuery>, @Res() reply: FastifyReply): Promise<void> {
    const { artifact, data } = await this.artifacts.download(params.orgId, params.conversationId, params.artifactId, query);
    const type = artifact.contentType.split(';')[0]!.trim().toLowerCase();
    const inline = INLINE_ATTACHMENT_TYPES.includes(type);
    await reply
      .status(200)
      .header('content-type', inline ? type : 'application/octet-stream')
      .header('content-disposition', `${inline ? 'inline' : 'attachment'}; filename*=UTF-8''${encodeRFC5987(artifact.name)}`)
      .header('content-length', String(data.length))
      .header('x-content-type-options', 'nosniff')
      .header('content-security-policy', 'sandbox')
      .header('cache-control', 'private')
      .send(data);
  }
}

/** A file name as an RFC 5987 value (`filename*=UTF-8''...`): every byte outside the unreserved set percent-encoded. */
function encodeRFC5987(name: string): string {
  return encodeURIComponent(name || 'attachment').replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
