export * from './roles.js';
export * from './errors.js';
export * from './auth.js';
export * from './notifications.js';
export * from './realtime.js';
export * from './orgs.js';
export * from './assignments.js';
export * from './experts.js';
