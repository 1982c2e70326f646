export * from './crypto.js';
