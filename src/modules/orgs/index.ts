export { OrgsModule } from './orgs.module.js';
export { OrgsService, toOrgDto, type OrgSummary } from './orgs.service.js';
export { ORG_ASSIGNMENTS, ORG_GRANTS, ORG_INVITE, type OrgAssignmentsPort, type OrgGrantsPort, type OrgInvitePort } from './orgs.ports.js';
export { ORG_STATUSES, type OrgStatus, type OrgRow } from './orgs.tables.js';
export { orgsConfig, type OrgsConfig } from './orgs.config.js';
export { backdateOrgActivation } from './history-writes.js';
export { OrgDtoSchema, OrgIdParamsSchema } from './orgs.schemas.js';
export { orgIdsInStatus, orgLegalNames } from './orgs.sql.js';
