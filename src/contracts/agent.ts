import { z } from 'zod';

/**
 * AgentToolKind (spec 4.6, 9.1): `bespoke` tools run inside the service against its own data;
 * `nango` tools are hosted integrations that need a connection configured for the org.
 */
export const AGENT_TOOL_KINDS = ['bespoke', 'nango'] as const;
export type AgentToolKind = (typeof AGENT_TOOL_KINDS)[number];

/** Tool names as the model providers accept them. */
export const TOOL_NAME_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;

/** `GET /v1/agent-api/tools/:toolName` (API-MAP.md): `inputSchema` is a JSON Schema object. */
export const ToolDescriptorSchema = z.object({
  name: z.string(),
  kind: z.enum(AGENT_TOOL_KINDS),
  description: z.string(),
  inputSchema: z.record(z.string(), z.unknown()),
});
export type ToolDescriptor = z.infer<typeof ToolDescriptorSchema>;

/** An org's permission for one tool, and whether the model is actually offered it. */
export const ToolPermissionDtoSchema = z.object({
  orgId: z.uuid(),
  toolName: z.string(),
  kind: z.enum(AGENT_TOOL_KINDS),
  /** The org's setting, or the tool's default when the org never set it. */
  enabled: z.boolean(),
  source: z.enum(['org', 'default']),
  /** False for a hosted integration the service has no connection for. */
  available: z.boolean(),
  /** enabled and available: the tool is given to the Specialist's model. */
  offered: z.boolean(),
  updatedBy: z.string().nullable(),
  updatedAt: z.string().nullable(),
});
export type ToolPermissionDto = z.infer<typeof ToolPermissionDtoSchema>;

export const SetToolPermissionSchema = z.object({ enabled: z.boolean() });
export type SetToolPermissionInput = z.infer<typeof SetToolPermissionSchema>;
