export { ChannelsModule } from './channels.module.js';
export { IntegrationsService } from './integrations.service.js';
export { channelsConfig, type ChannelsConfig } from './channels.config.js';
