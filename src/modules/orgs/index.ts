export { OrgsModule } from './orgs.module.js';
export { OrgsService, toOrgDto, type OrgSummary, type Phase0Indicator } from './orgs.service.js';
export { ORG_STATUSES, type OrgStatus, type OrgRow } from './orgs.tables.js';
