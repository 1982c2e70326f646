export { UsersModule } from './users.module.js';
export { UsersService, type CreateUserInput } from './users.service.js';
export type { MembershipRecord } from './users.repository.js';
export type { UserRow } from './users.tables.js';
