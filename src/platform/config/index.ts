export { loadConfig, ConfigError, type AppConfig } from './config.js';
export { APP_CONFIG } from './config.token.js';
export { defineConfigSlice, type ConfigSlice, type Environment, type SliceContext } from './slice.js';
