import { Module, type DynamicModule } from '@nestjs/common';
import { AuthModule } from '../auth/index.js';
import { BillingModule } from '../billing/index.js';
import { ConversationsModule } from '../conversations/index.js';
import { ExpertsModule } from '../experts/index.js';
import { OrgsModule } from '../orgs/index.js';
import { SpecialistsModule } from '../specialists/index.js';
import { UsersModule } from '../users/index.js';
import { DemoController } from './demo.controller.js';
import { DemoLife } from './demo.life.js';
import { DemoService } from './demo.service.js';

@Module({})
export class DemoModule {
  /** The demo routes exist only outside production. */
  static forRoot(opts: { routes: boolean }): DynamicModule {
    return {
      module: DemoModule,
      imports: [UsersModule, OrgsModule, SpecialistsModule, AuthModule, ExpertsModule, ConversationsModule, BillingModule],
      controllers: opts.routes ? [DemoController] : [],
      providers: [DemoService, DemoLife],
      exports: [DemoService],
    };
  }
}
