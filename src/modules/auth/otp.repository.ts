import { Injectable } from '@nestjs/common';
import { and, desc, eq, gt, isNull, lt, or, sql } from 'drizzle-orm';
import { systemNow } from '../../platform/clock/clock.js';
import { DbService } from '../../platform/db/db.service.js';
import { emailOtpCodes, type EmailOtpCodeRow, type OtpPurpose } from './auth.tables.js';

/** The codes of one address, purpose and (for invite codes) subject. */
const codesOf = (email: string, purpose: OtpPurpose, subjectId?: string) =>
  and(eq(emailOtpCodes.email, email), eq(emailOtpCodes.purpose, purpose), subjectId === undefined ? undefined : eq(emailOtpCodes.subjectId, subjectId), isNull(emailOtpCodes.consumedAt));

@Injectable()
export class OtpRepository {
  constructor(private readonly dbService: DbService) {}

  async insert(values: { email: string; purpose: OtpPurpose; subjectId?: string; codeHash: string; expiresAt: Date }): Promise<void> {
    await this.dbService.db.insert(emailOtpCodes).values(values);
  }

  /** The newest live code for an address and purpose (and subject, for invite codes). */
  async findLatestLive(email: string, purpose: OtpPurpose, subjectId?: string): Promise<EmailOtpCodeRow | undefined> {
    const [row] = await this.dbService.db
      .select()
      .from(emailOtpCodes)
      .where(and(codesOf(email, purpose, subjectId), gt(emailOtpCodes.expiresAt, systemNow())))
      .orderBy(desc(emailOtpCodes.createdAt))
      .limit(1);
    return row;
  }

  /** Counts one attempt unless `max` are spent; false when they are (parallel guesses included). */
  async takeAttempt(id: string, max: number): Promise<boolean> {
    const rows = await this.dbService.db
      .update(emailOtpCodes)
      .set({ attempts: sql`${emailOtpCodes.attempts} + 1` })
      .where(and(eq(emailOtpCodes.id, id), lt(emailOtpCodes.attempts, max)))
      .returning({ id: emailOtpCodes.id });
    return rows.length === 1;
  }

  /** Gives back the attempt of a right guess. */
  async returnAttempt(id: string): Promise<void> {
    await this.dbService.db
      .update(emailOtpCodes)
      .set({ attempts: sql`greatest(${emailOtpCodes.attempts} - 1, 0)` })
      .where(eq(emailOtpCodes.id, id));
  }

  /** Marks the code used; false when another request used it first. */
  async consume(id: string): Promise<boolean> {
    const rows = await this.dbService.db
      .update(emailOtpCodes)
      .set({ consumedAt: systemNow() })
      .where(and(eq(emailOtpCodes.id, id), isNull(emailOtpCodes.consumedAt)))
      .returning({ id: emailOtpCodes.id });
    return rows.length === 1;
  }

  /** Earlier live codes stop working when a new one is sent. */
  async retireLive(email: string, purpose: OtpPurpose, subjectId?: string): Promise<void> {
    await this.dbService.db
      .update(emailOtpCodes)
      .set({ consumedAt: systemNow() })
      .where(codesOf(email, purpose, subjectId));
  }

  async deleteStale(before: Date): Promise<void> {
    await this.dbService.db.delete(emailOtpCodes).where(or(lt(emailOtpCodes.expiresAt, before), lt(emailOtpCodes.consumedAt, before)));
  }
}
