import { Controller, Get, Inject } from '@nestjs/common';
import { Public } from '../auth/auth.decorators.js';
import { APP_CONFIG } from '../config/config.token.js';
import type { AppConfig } from '../config/config.js';
import { Endpoint } from './endpoint.js';
import { RouteCatalog } from './openapi.service.js';

@Controller()
export class DocsController {
  private document?: object;

  constructor(
    private readonly catalog: RouteCatalog,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get(['docs', 'openapi.json'])
  @Public()
  @Endpoint({ summary: 'This OpenAPI document, generated from the zod schemas of every route', tags: ['operations'] })
  docs() {
    this.document ??= this.catalog.openApiDocument({
      title: 'Client Organization Service API',
      version: '1',
      serverUrl: `${this.config.publicUrl}`,
    });
    return this.document;
  }
}
