import { Injectable } from '@nestjs/common';
import { AppError } from '../../platform/errors/app-error.js';
import { OrgsRepository } from './orgs.repository.js';
import type { OrgDto } from './orgs.schemas.js';
import type { NewOrgRow, OrgRow } from './orgs.tables.js';

export interface OrgSummary {
  id: string;
  slug: string;
  legalName: string;
  status: OrgRow['status'];
}

/** Organizations. The setup wizard and its rules arrive with the account-manager issue. */
@Injectable()
export class OrgsService {
  constructor(private readonly repo: OrgsRepository) {}

  findBySlug(slug: string): Promise<OrgRow | undefined> {
    return this.repo.findBySlug(slug.toLowerCase());
  }

  findById(id: string): Promise<OrgRow | undefined> {
    return this.repo.findById(id);
  }

  async get(id: string): Promise<OrgDto> {
    const row = await this.repo.findById(id);
    if (!row) throw AppError.notFound('Organization');
    return toOrgDto(row);
  }

  async summaries(ids: string[]): Promise<Map<string, OrgSummary>> {
    const rows = await this.repo.findByIds([...new Set(ids)]);
    return new Map(rows.map((r) => [r.id, { id: r.id, slug: r.slug, legalName: r.legalName, status: r.status }]));
  }

  /** Creates an org row as given (used by the demo seed; the wizard adds its validation on top). */
  create(values: NewOrgRow): Promise<OrgRow> {
    return this.repo.insert(values);
  }
}

export function toOrgDto(r: OrgRow): OrgDto {
  return {
    id: r.id,
    legalName: r.legalName,
    slug: r.slug,
    industry: r.industry,
    corporateDomains: r.corporateDomains,
    adminEmail: r.adminEmail,
    website: r.website,
    timezone: r.timezone,
    logoUrl: r.logoUrl,
    billingEmail: r.billingEmail,
    companySize: r.companySize,
    trialEndDate: r.trialEndDate,
    trialMode: r.trialMode,
    trialStartedAt: r.trialStartedAt?.toISOString() ?? null,
    status: r.status,
    assignedAmId: r.assignedAmId,
    createdAt: r.createdAt.toISOString(),
  };
}
