export { ChannelsModule } from './channels.module.js';
export { IntegrationsService } from './integrations.service.js';
