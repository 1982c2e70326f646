import { Module, type DynamicModule } from '@nestjs/common';
import { PlatformModule, type PlatformDeps } from './platform/platform.module.js';
import { AdminModule } from './modules/admin/index.js';
import { AgentModule } from './modules/agent/index.js';
import { BillingModule } from './modules/billing/index.js';
import { AuthModule } from './modules/auth/index.js';
import { ChannelsModule } from './modules/channels/index.js';
import { ClientBriefsModule } from './modules/client-briefs/index.js';
import { ConversationsModule } from './modules/conversations/index.js';
import { DemoModule } from './modules/demo/index.js';
import { ExpertsModule } from './modules/experts/index.js';
import { OnboardingModule } from './modules/onboarding/index.js';
import { NotificationsModule } from './modules/notifications/index.js';
import { OrgsModule } from './modules/orgs/index.js';
import { SpecialistsModule } from './modules/specialists/index.js';
import { UsersModule } from './modules/users/index.js';

/** Composition only: the platform and the domain modules. */
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
        NotificationsModule,
        ExpertsModule,
        OnboardingModule,
        ClientBriefsModule,
        AgentModule,
        ConversationsModule,
        ChannelsModule,
        BillingModule,
        AdminModule,
        ...(deps.config.isProduction ? [] : [DemoModule.forRoot({ routes: true })]),
      ],
    };
  }
}
