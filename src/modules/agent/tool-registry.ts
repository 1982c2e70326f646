import { z } from 'zod';
import type { AgentToolKind, ToolDescriptor } from '../../contracts/agent.js';

export interface AgentToolDefinition {
  name: string;
  kind: AgentToolKind;
  description: string;
  input: z.ZodObject;
  /** Whether an org that never set a permission for the tool has it enabled. */
  defaultEnabled: boolean;
}

export const ORG_LOCAL_TIME_TOOL = 'get_org_local_time';
export const CLIENT_BRIEF_TOOL = 'read_client_brief';

/**
 * Every tool the Specialist agent knows (spec 4.6, 9.1). Bespoke tools run in this service on
 * the org's own data and are on by default (read-only). The hosted-integration (`nango`) tools
 * need a connection per org that this service does not have: they are described, can be
 * permitted, and are never offered to the model until such a connection exists.
 */
export const AGENT_TOOLS: readonly AgentToolDefinition[] = [
  {
    name: ORG_LOCAL_TIME_TOOL,
    kind: 'bespoke',
    description: "The current date, time and weekday in the client organization's timezone.",
    input: z.object({}),
    defaultEnabled: true,
  },
  {
    name: CLIENT_BRIEF_TOOL,
    kind: 'bespoke',
    description: "The client organization's briefs in full (title, content, last update), optionally only those mentioning some words.",
    input: z.object({ query: z.string().trim().max(200).optional().describe('Words to look for in the titles and contents; all briefs when omitted') }),
    defaultEnabled: true,
  },
  {
    name: 'calendar_list_events',
    kind: 'nango',
    description: "Hosted integration: upcoming events of the client's connected calendar. Needs a calendar connection for the org.",
    input: z.object({
      from: z.iso.datetime({ offset: true }).optional().describe('Start of the window (default: now)'),
      to: z.iso.datetime({ offset: true }).optional().describe('End of the window (default: 7 days later)'),
    }),
    defaultEnabled: false,
  },
  {
    name: 'crm_find_contact',
    kind: 'nango',
    description: "Hosted integration: find a contact in the client's connected CRM by email or name. Needs a CRM connection for the org.",
    input: z.object({ email: z.email().optional(), name: z.string().trim().min(1).max(200).optional() }),
    defaultEnabled: false,
  },
];

const byName = new Map(AGENT_TOOLS.map((t) => [t.name, t]));

export function findTool(name: string): AgentToolDefinition | undefined {
  return byName.get(name);
}

export function toDescriptor(t: AgentToolDefinition): ToolDescriptor {
  return { name: t.name, kind: t.kind, description: t.description, inputSchema: z.toJSONSchema(t.input) as Record<string, unknown> };
}
