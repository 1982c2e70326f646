import { Controller, Get, Header, Inject } from '@nestjs/common';
import { Public } from '../auth/auth.decorators.js';
import { APP_CONFIG } from '../config/config.token.js';
import type { AppConfig } from '../config/config.js';
import { z } from 'zod';
import { Endpoint } from './endpoint.js';
import { RouteCatalog } from './openapi.service.js';

/** The head of an OpenAPI 3.1 document; the rest is described by the OpenAPI specification itself. */
const OpenApiDocumentSchema = z.looseObject({ openapi: z.string(), info: z.looseObject({ title: z.string(), version: z.string() }) });

@Controller()
export class DocsController {
  /** The document as sent: made once, on the first request, when every route is known. */
  private document?: string;

  constructor(
    private readonly catalog: RouteCatalog,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get(['docs', 'openapi.json'])
  @Public()
  @Header('Content-Type', 'application/json; charset=utf-8')
  @Endpoint({
    summary: 'This OpenAPI document, generated from the zod schemas of every route',
    tags: ['operations'],
    response: { raw: 'application/json', schema: OpenApiDocumentSchema },
  })
  docs() {
    this.document ??= JSON.stringify(
      this.catalog.openApiDocument({
        title: 'Client Organization Service API',
        version: '1',
        serverUrl: `${this.config.publicUrl}`,
      }),
    );
    return this.document;
  }
}
