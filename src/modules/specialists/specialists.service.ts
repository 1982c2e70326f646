import { Injectable } from '@nestjs/common';
import type { Principal } from '../../platform/auth/principal.js';
import { AuditService } from '../../platform/audit/audit.service.js';
import { AppError } from '../../platform/errors/app-error.js';
import { pageOf, type Keyset } from '../../platform/http/pagination.js';
import { SpecialistsRepository } from './specialists.repository.js';
import type { CreateSpecialistInput, SpecialistDto, UpdateSpecialistInput } from './specialists.schemas.js';
import type { MonthlyRateConfig, SpecialistRow } from './specialists.tables.js';

export interface NewSpecialist {
  name: string;
  slug: string;
  avatarUrl?: string;
  routingEmail?: string;
  skillTags: string[];
  persona: string;
  monthlyRateConfig: MonthlyRateConfig | null;
}

export function toSpecialistDto(r: SpecialistRow): SpecialistDto {
  return {
    id: r.id,
    name: r.name,
    slug: r.slug,
    avatarUrl: r.avatarUrl,
    routingEmail: r.routingEmail,
    skillTags: r.skillTags,
    persona: r.persona,
    monthly_rate_config: r.monthlyRateConfig,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}

const isUniqueViolation = (err: unknown) => (err as { cause?: { code?: string } })?.cause?.code === '23505' || (err as { code?: string })?.code === '23505';

/** The Specialist catalog (spec 2.2): superadmins create and edit personas; AMs only read the pool. */
@Injectable()
export class SpecialistsService {
  constructor(
    private readonly repo: SpecialistsRepository,
    private readonly audit: AuditService,
  ) {}

  async list(page: { limit: number; after?: Keyset }, filter: { q?: string } = {}) {
    return pageOf(await this.repo.list(filter, page), page.limit, (r) => ({ at: r.createdAt, id: r.id }), toSpecialistDto);
  }

  async get(id: string): Promise<SpecialistDto> {
    const row = await this.repo.findById(id);
    if (!row) throw AppError.notFound('Specialist');
    return toSpecialistDto(row);
  }

  /** Catalog rows by id (the conversations module shows names and avatars, and gives the agent its persona). */
  /** One Specialist for an agent turn (its name and persona): cached until it is updated. */
  forTurn(id: string): Promise<SpecialistRow | undefined> {
    return this.repo.findForTurn(id);
  }

  async byIds(ids: string[]): Promise<Map<string, SpecialistRow>> {
    const rows = await this.repo.findByIds([...new Set(ids)]);
    return new Map(rows.map((r) => [r.id, r]));
  }

  findBySlug(slug: string): Promise<SpecialistRow | undefined> {
    return this.repo.findBySlug(slug);
  }

  /** Used by the demo seed. */
  async create(input: NewSpecialist): Promise<SpecialistRow> {
    const row = await this.repo.insert(input);
    await this.recordRate(row, null);
    return row;
  }

  /** Catalog rates are versioned too: billing prorates a mid-month change by day. */
  private async recordRate(row: SpecialistRow, changedBy: string | null): Promise<void> {
    await this.repo.addRateHistory({ specialistId: row.id, baseRate: row.monthlyRateConfig?.base_rate ?? null, currency: row.monthlyRateConfig?.currency ?? null, changedBy });
  }

  async createFromApi(actor: Principal, input: CreateSpecialistInput): Promise<SpecialistDto> {
    if (await this.repo.findBySlug(input.slug)) throw AppError.conflict('A Specialist with this slug already exists');
    let row: SpecialistRow;
    try {
      row = await this.repo.insert({
        name: input.name,
        slug: input.slug,
        avatarUrl: input.avatarUrl ?? null,
        routingEmail: input.routingEmail?.toLowerCase() ?? null,
        skillTags: input.skillTags,
        persona: input.persona,
        monthlyRateConfig: input.monthly_rate_config,
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw AppError.conflict('A Specialist with this slug already exists');
      throw err;
    }
    await this.recordRate(row, actor.userId);
    await this.audit.record({ action: 'specialist.created', userId: actor.userId, resourceId: row.id, impersonatorId: actor.impersonatorId, meta: { slug: row.slug } });
    return toSpecialistDto(row);
  }

  async update(actor: Principal, id: string, input: UpdateSpecialistInput): Promise<SpecialistDto> {
    const before = await this.repo.findById(id);
    if (!before) throw AppError.notFound('Specialist');
    if (input.slug && input.slug !== before.slug && (await this.repo.findBySlug(input.slug))) {
      throw AppError.conflict('A Specialist with this slug already exists');
    }
    const row = await this.repo.update(id, {
      ...(input.name !== undefined && { name: input.name }),
      ...(input.slug !== undefined && { slug: input.slug }),
      ...(input.avatarUrl !== undefined && { avatarUrl: input.avatarUrl }),
      ...(input.routingEmail !== undefined && { routingEmail: input.routingEmail?.toLowerCase() ?? null }),
      ...(input.skillTags !== undefined && { skillTags: input.skillTags }),
      ...(input.persona !== undefined && { persona: input.persona }),
      ...(input.monthly_rate_config !== undefined && { monthlyRateConfig: input.monthly_rate_config }),
    });
    const rateChanged = JSON.stringify(before.monthlyRateConfig) !== JSON.stringify(row!.monthlyRateConfig);
    if (rateChanged) await this.recordRate(row!, actor.userId);
    await this.audit.record({
      action: 'specialist.updated',
      userId: actor.userId,
      resourceId: id,
      impersonatorId: actor.impersonatorId,
      meta: { fields: Object.keys(input) },
    });
    return toSpecialistDto(row!);
  }
}
