import type { OsaDto } from '@contracts';

/** What unassigning an OSA does (its mailbox is archived, billing stops, the primary moves), in a sentence. */
export function unassignConsequence(osa: OsaDto): string {
  const parts = ['it stops answering this client and its fee stops today (prorated)'];
  if (osa.mailboxUserId && !osa.mailboxArchivedAt) parts.push(`its mailbox ${osa.email_alias} is archived, so mail to it is no longer received`);
  if (osa.isPrimary) parts.push('another assigned Specialist becomes the primary');
  return `${parts.join('; ')}.`;
}
