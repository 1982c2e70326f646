export { ClientBriefsModule } from './client-briefs.module.js';
export { ClientBriefsService, toClientBriefDto } from './client-briefs.service.js';
export type { ClientBriefRow } from './client-briefs.tables.js';
