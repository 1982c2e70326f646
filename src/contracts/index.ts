export * from './roles.js';
export * from './errors.js';
export * from './auth.js';
