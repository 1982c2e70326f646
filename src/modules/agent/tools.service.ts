import { Injectable } from '@nestjs/common';
import { tool, zodSchema, type Schema, type ToolSet } from 'ai';
import type { ToolDescriptor, ToolPermissionDto } from '../../contracts/agent.js';
import { AuditService } from '../../platform/audit/audit.service.js';
import type { Principal } from '../../platform/auth/principal.js';
import { Clock } from '../../platform/clock/clock.js';
import { AppError } from '../../platform/errors/app-error.js';
import { jobScope, type OrgScope } from '../../platform/tenancy/org-scope.js';
import { ClientBriefsService } from '../client-briefs/index.js';
import { OrgsService, type OrgRow } from '../orgs/index.js';
import type { OrgToolPermissionRow } from './agent.tables.js';
import { localTimeIn } from './local-time.js';
import { AGENT_TOOLS, CLIENT_BRIEF_TOOL, ORG_LOCAL_TIME_TOOL, findTool, toDescriptor, type AgentToolDefinition } from './tool-registry.js';
import { ToolPermissionsRepository } from './tool-permissions.repository.js';

/**
 * The AI SDK's schema of each tool's input, made once: it converts a zod schema to JSON Schema on
 * every model call it is handed raw, and only once when handed this (it keeps the conversion).
 */
const inputSchemas = new Map<string, Schema<Record<string, unknown>>>();
function inputSchemaOf(def: AgentToolDefinition): Schema<Record<string, unknown>> {
  let schema = inputSchemas.get(def.name);
  if (!schema) inputSchemas.set(def.name, (schema = zodSchema(def.input) as Schema<Record<string, unknown>>));
  return schema;
}

/** A brief tool answer stays within what a model context comfortably holds. */
const BRIEF_TOOL_MAX_CHARS = 40_000;

type Executor = (org: OrgRow, input: Record<string, unknown>) => Promise<unknown>;

/** The agent's tools (spec 4.6, 9.1): descriptors, per-org permissions, and the tools a turn is offered. */
@Injectable()
export class AgentToolsService {
  /** Bespoke tools run here, on the org's own data. Hosted (`nango`) tools have no executor. */
  private readonly executors: Record<string, Executor> = {
    [ORG_LOCAL_TIME_TOOL]: async (org) => localTimeIn(org.timezone, this.clock.now()),
    [CLIENT_BRIEF_TOOL]: async (org, input) => this.readBriefs(org.id, typeof input.query === 'string' ? input.query : undefined),
  };

  constructor(
    private readonly repo: ToolPermissionsRepository,
    private readonly orgs: OrgsService,
    private readonly briefs: ClientBriefsService,
    private readonly clock: Clock,
    private readonly audit: AuditService,
  ) {}

  descriptors(): ToolDescriptor[] {
    return AGENT_TOOLS.map(toDescriptor);
  }

  descriptor(name: string): ToolDescriptor {
    return toDescriptor(this.require(name));
  }

  async permissions(scope: OrgScope): Promise<ToolPermissionDto[]> {
    const { orgId } = scope;
    await this.requireOrg(orgId);
    const rows = new Map((await this.repo.listForOrg(scope)).map((r) => [r.toolName, r]));
    return AGENT_TOOLS.map((t) => this.permissionDto(orgId, t, rows.get(t.name)));
  }

  async setPermission(actor: Principal, scope: OrgScope, toolName: string, enabled: boolean): Promise<ToolPermissionDto> {
    const { orgId } = scope;
    const def = this.require(toolName);
    await this.requireOrg(orgId);
    const before = (await this.repo.listForOrg(scope)).find((r) => r.toolName === toolName);
    const row = await this.repo.upsert(scope, { toolName, enabled, updatedBy: actor.userId });
    await this.audit.record({
      action: 'tool_permission.updated',
      userId: actor.userId,
      resourceId: toolName,
      orgId,
      impersonatorId: actor.impersonatorId,
      meta: { toolName, kind: def.kind, enabled, previous: before ? before.enabled : { default: def.defaultEnabled } },
    });
    return this.permissionDto(orgId, def, row);
  }

  /** The tools a turn for this org is offered: permitted and available, ready for the AI SDK. */
  async offeredTools(org: OrgRow): Promise<{ tools: ToolSet; offered: AgentToolDefinition[] }> {
    const rows = new Map((await this.repo.listForTurn(jobScope({ orgId: org.id }))).map((r) => [r.toolName, r]));
    const offered = AGENT_TOOLS.filter((t) => this.permissionDto(org.id, t, rows.get(t.name)).offered);
    const tools: ToolSet = {};
    for (const def of offered) {
      const execute = this.executors[def.name]!;
      tools[def.name] = tool({ description: def.description, inputSchema: inputSchemaOf(def), execute: (input: Record<string, unknown>) => execute(org, input) });
    }
    return { tools, offered };
  }

  /** A hosted integration needs a connection for the org; this service has none configured. */
  private available(def: AgentToolDefinition): boolean {
    return def.kind === 'bespoke' && def.name in this.executors;
  }

  private permissionDto(orgId: string, def: AgentToolDefinition, row: OrgToolPermissionRow | undefined): ToolPermissionDto {
    const enabled = row ? row.enabled : def.defaultEnabled;
    const available = this.available(def);
    return {
      orgId,
      toolName: def.name,
      kind: def.kind,
      enabled,
      source: row ? 'org' : 'default',
      available,
      offered: enabled && available,
      updatedBy: row?.updatedBy ?? null,
      updatedAt: row ? row.updatedAt.toISOString() : null,
    };
  }

  private async readBriefs(orgId: string, query: string | undefined) {
    const words = (query ?? '').toLowerCase().split(/\s+/).filter(Boolean);
    const all = await this.briefs.briefsOf(jobScope({ orgId }));
    const matching = words.length === 0 ? all : all.filter((b) => words.some((w) => `${b.title}\n${b.content}`.toLowerCase().includes(w)));
    let budget = BRIEF_TOOL_MAX_CHARS;
    const briefs = matching.map((b) => {
      const content = b.content.slice(0, Math.max(0, budget));
      budget -= content.length;
      return { title: b.title, content, truncated: content.length < b.content.length, updatedAt: b.updatedAt.toISOString() };
    });
    return { count: briefs.length, briefs };
  }

  private require(name: string): AgentToolDefinition {
    const def = findTool(name);
    if (!def) throw AppError.notFound('Tool');
    return def;
  }

  private async requireOrg(orgId: string): Promise<void> {
    if (!(await this.orgs.findById(orgId))) throw AppError.notFound('Organization');
  }
}
