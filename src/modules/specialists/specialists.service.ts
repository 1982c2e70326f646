import { Injectable } from '@nestjs/common';
import { SpecialistsRepository } from './specialists.repository.js';
import type { MonthlyRateConfig, SpecialistRow } from './specialists.tables.js';

export interface NewSpecialist {
  name: string;
  slug: string;
  avatarUrl?: string;
  routingEmail?: string;
  skillTags: string[];
  persona: string;
  monthlyRateConfig: MonthlyRateConfig;
}

/** The Specialist catalog. Its superadmin-only API arrives with the account-manager issue. */
@Injectable()
export class SpecialistsService {
  constructor(private readonly repo: SpecialistsRepository) {}

  list(): Promise<SpecialistRow[]> {
    return this.repo.list();
  }

  findBySlug(slug: string): Promise<SpecialistRow | undefined> {
    return this.repo.findBySlug(slug);
  }

  create(input: NewSpecialist): Promise<SpecialistRow> {
    return this.repo.insert(input);
  }
}
