export { loadConfig, ConfigError, type AppConfig } from './config.js';
export { APP_CONFIG } from './config.token.js';
