export { UsersModule } from './users.module.js';
export { UsersService, clientRoleFor, type CreateUserInput, type UserFieldChanges } from './users.service.js';
export type { MembershipRecord, OrgMemberRecord, UserSearch } from './users.repository.js';
export type { UserRow } from './users.tables.js';
export { memberOrgIdsOf, principalOf, principalFromJson, type PrincipalJson } from './users.sql.js';
