import { z } from 'zod';

/** A real calendar day (2024-02-30 is not one) in years the database and the day arithmetic can hold. */
export function isCalendarDay(day: string): boolean {
  const at = new Date(`${day}T00:00:00Z`);
  return day >= '1970-01-01' && day <= '9998-12-31' && !Number.isNaN(at.getTime()) && at.toISOString().startsWith(day);
}

/** `YYYY-MM-DD` (API-MAP.md "Conventions"), a day that exists. */
export const CalendarDaySchema = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'Must be a date YYYY-MM-DD')
  .refine(isCalendarDay, 'Not a real date');
