import { Controller, Delete, Get, Options, Patch, Post, Put, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '../../platform/auth/auth.decorators.js';
import { Endpoint } from '../../platform/http/endpoint.js';

const OLD = '/api/environment-profiles';
const NEW = '/api/client-briefs';
const PATHS = ['environment-profiles', 'environment-profiles/*'];

const renamed = (method: string) =>
  Endpoint({
    summary: `Renamed: ${method} answers 308 to the same path and query under /api/client-briefs`,
    description: 'Deprecated (spec 9.2); removed about 30 days after the frontend path swap. The Location header carries the new path.',
    tags: ['client-briefs'],
    response: null,
    status: 308,
  });

/**
 * Spec 9.2: the client brief resource was renamed; until the old paths are removed every method
 * on them answers 308 to the same path and query under /client-briefs. Public: a redirect reveals
 * nothing, and the client re-sends its token to the new path (308 keeps the method and body).
 */
@Controller()
@Public()
export class EnvironmentProfilesRedirectController {
  @Get(PATHS)
  @renamed('GET')
  get(@Req() req: FastifyRequest, @Res() reply: FastifyReply) {
    redirect(req, reply);
  }

  @Post(PATHS)
  @renamed('POST')
  post(@Req() req: FastifyRequest, @Res() reply: FastifyReply) {
    redirect(req, reply);
  }

  @Put(PATHS)
  @renamed('PUT')
  put(@Req() req: FastifyRequest, @Res() reply: FastifyReply) {
    redirect(req, reply);
  }

  @Patch(PATHS)
  @renamed('PATCH')
  patch(@Req() req: FastifyRequest, @Res() reply: FastifyReply) {
    redirect(req, reply);
  }

  @Delete(PATHS)
  @renamed('DELETE')
  delete(@Req() req: FastifyRequest, @Res() reply: FastifyReply) {
    redirect(req, reply);
  }

  @Options(PATHS)
  @renamed('OPTIONS')
  options(@Req() req: FastifyRequest, @Res() reply: FastifyReply) {
    redirect(req, reply);
  }
}

function redirect(req: FastifyRequest, reply: FastifyReply): void {
  const url = req.url;
  const target = url.startsWith(OLD) ? NEW + url.slice(OLD.length) : NEW;
  void reply.code(308).header('location', target).send();
}
