import type { ConfigSlice } from './platform/config/slice.js';
import { agentConfig } from './modules/agent/index.js';
import { authConfig } from './modules/auth/index.js';
import { billingConfig } from './modules/billing/index.js';
import { channelsConfig } from './modules/channels/index.js';
import { conversationsConfig } from './modules/conversations/index.js';
import { orgsConfig } from './modules/orgs/index.js';
import { specialistsConfig } from './modules/specialists/index.js';

/**
 * Every module's configuration slice: `loadConfig(env, CONFIG_SLICES)` checks them all before
 * anything starts, and each module reads its own through its provider.
 */
export const CONFIG_SLICES: readonly ConfigSlice<unknown>[] = [authConfig, orgsConfig, specialistsConfig, conversationsConfig, agentConfig, channelsConfig, billingConfig];
