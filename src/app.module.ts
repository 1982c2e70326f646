import { Module, type DynamicModule } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { RequestAuthenticator } from './platform/auth/request-auth.js';
import { RequestGuard } from './platform/http/request.guard.js';
import { PlatformModule, type PlatformDeps } from './platform/platform.module.js';
import { AuthModule } from './modules/auth/index.js';
import { DemoModule } from './modules/demo/index.js';
import { OrgsModule } from './modules/orgs/index.js';
import { SpecialistsModule } from './modules/specialists/index.js';
import { UsersModule } from './modules/users/index.js';

/** Composition only: the platform, the domain modules, and the global guard wired to the users module. */
@Module({})
export class AppModule {
  static forRoot(deps: PlatformDeps): DynamicModule {
    return {
      module: AppModule,
      imports: [
        PlatformModule.forRoot(deps),
        UsersModule,
        OrgsModule,
        SpecialistsModule,
        AuthModule,
        ...(deps.config.isProduction ? [] : [DemoModule.forRoot({ routes: true })]),
      ],
      providers: [RequestAuthenticator, { provide: APP_GUARD, useClass: RequestGuard }],
    };
  }
}
