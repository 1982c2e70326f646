import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { Principal } from '../../platform/auth/principal.js';
import type { OrgScope } from '../../platform/tenancy/org-scope.js';
import { AuditService } from '../../platform/audit/audit.service.js';
import { DbService } from '../../platform/db/db.service.js';
import { AppError } from '../../platform/errors/app-error.js';
import { logger } from '../../platform/observability/logger.js';
import type { FileStorage } from '../../platform/storage/file-storage.js';
import { sniffLogo } from './logo-image.js';
import { OrgLogosRepository } from './org-logos.repository.js';
import { OrgsRepository } from './orgs.repository.js';
import type { OrgDto } from './orgs.schemas.js';
import { OrgsService, toOrgDto } from './orgs.service.js';
import type { OrgLogoRow, OrgRow } from './orgs.tables.js';

export const LOGO_STORAGE = Symbol('LOGO_STORAGE');

/**
 * An org's logo (spec 2.1 "logo: image"): uploaded, checked by its bytes, kept in the logo storage
 * (a directory under DATA_DIR, like a conversation's artifacts) with a row naming it, and served
 * by the org's own route. One per org: a new upload replaces the old one, whose file goes once the
 * replacement has committed.
 */
@Injectable()
export class OrgLogosService {
  constructor(
    private readonly repo: OrgLogosRepository,
    private readonly orgsRepo: OrgsRepository,
    private readonly orgs: OrgsService,
    private readonly dbService: DbService,
    private readonly audit: AuditService,
    @Inject(LOGO_STORAGE) private readonly storage: FileStorage,
  ) {}

  async replace(actor: Principal, scope: OrgScope, data: Buffer): Promise<OrgDto> {
    const { orgId } = scope;
    const image = sniffLogo(data);
    if (!image.ok) throw new AppError('validation_failed', 'Invalid body', { details: [{ field: 'file', message: image.message }] });
    await this.orgs.get(orgId);
    const id = randomUUID();
    const storageKey = `${orgId}/${id}`;
    await this.storage.put(storageKey, data);
    let previous: OrgLogoRow | undefined;
    let org: OrgRow;
    try {
      org = await this.dbService.transaction(async () => {
        await this.orgs.lockForUpdate(orgId);
        previous = await this.repo.deleteByOrg(scope);
        await this.repo.insert(scope, { id, contentType: image.type, size: data.length, width: image.width, height: image.height, storageKey });
        return (await this.orgsRepo.update(orgId, { logoId: id }))!;
      });
    } catch (err) {
      await this.discard(storageKey);
      throw err;
    }
    if (previous) await this.discard(previous.storageKey);
    await this.audit.record({
      action: 'org.logo_updated',
      userId: actor.userId,
      resourceId: orgId,
      orgId,
      impersonatorId: actor.impersonatorId,
      meta: { contentType: image.type, size: data.length, width: image.width, height: image.height },
    });
    return toOrgDto(org);
  }

  /** Removes the org's logo; an org without one stays without one (the same answer). */
  async remove(actor: Principal, scope: OrgScope): Promise<OrgDto> {
    const { orgId } = scope;
    let previous: OrgLogoRow | undefined;
    const org = await this.dbService.transaction(async () => {
      const locked = await this.orgs.lockForUpdate(orgId);
      previous = await this.repo.deleteByOrg(scope);
      return locked.logoId === null ? locked : (await this.orgsRepo.update(orgId, { logoId: null }))!;
    });
    if (previous) {
      await this.discard(previous.storageKey);
      await this.audit.record({ action: 'org.logo_removed', userId: actor.userId, resourceId: orgId, orgId, impersonatorId: actor.impersonatorId });
    }
    return toOrgDto(org);
  }

  /** The org's logo row (404 without one); its bytes are read with `bytes`. */
  async find(scope: OrgScope): Promise<OrgLogoRow> {
    const logo = await this.repo.findByOrg(scope);
    if (!logo) throw AppError.notFound('Logo');
    return logo;
  }

  async bytes(logo: OrgLogoRow): Promise<Buffer> {
    const data = await this.storage.get(logo.storageKey).catch(() => undefined);
    if (!data) throw AppError.notFound('Logo');
    return data;
  }

  /** A file nobody names any more: best-effort (a leftover file is harmless, a failed request is not). */
  private async discard(storageKey: string): Promise<void> {
    await this.storage.delete(storageKey).catch((err: unknown) => logger.warn({ err, storageKey }, 'could not delete a logo file'));
  }
}
