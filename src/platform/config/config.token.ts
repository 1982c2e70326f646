/** DI token of the AppConfig object. */
export const APP_CONFIG = Symbol('APP_CONFIG');
