import { Injectable } from '@nestjs/common';
import { and, eq, inArray, isNull } from 'drizzle-orm';
import { Clock } from '../../platform/clock/clock.js';
import { DbService } from '../../platform/db/db.service.js';
import { totpRecoveryCodes } from './auth.tables.js';

/** Hashed two-factor recovery codes; queries only. */
@Injectable()
export class RecoveryCodesRepository {
  constructor(
    private readonly dbService: DbService,
    private readonly clock: Clock,
  ) {}

  async replace(userId: string, codeHashes: string[]): Promise<void> {
    await this.dbService.db.delete(totpRecoveryCodes).where(eq(totpRecoveryCodes.userId, userId));
    if (codeHashes.length > 0) await this.dbService.db.insert(totpRecoveryCodes).values(codeHashes.map((codeHash) => ({ userId, codeHash })));
  }

  /**
   * Spends one unused code given as its hash under each key in use (a user's codes are all hashed
   * under one key); false when there is no such code or it was used already.
   */
  async consume(userId: string, codeHashes: string[]): Promise<boolean> {
    if (codeHashes.length === 0) return false;
    const rows = await this.dbService.db
      .update(totpRecoveryCodes)
      .set({ usedAt: this.clock.now() })
      .where(and(eq(totpRecoveryCodes.userId, userId), inArray(totpRecoveryCodes.codeHash, codeHashes), isNull(totpRecoveryCodes.usedAt)))
      .returning({ id: totpRecoveryCodes.id });
    return rows.length > 0;
  }

  async countUnused(userId: string): Promise<number> {
    const rows = await this.dbService.db
      .select({ id: totpRecoveryCodes.id })
      .from(totpRecoveryCodes)
      .where(and(eq(totpRecoveryCodes.userId, userId), isNull(totpRecoveryCodes.usedAt)));
    return rows.length;
  }
}
