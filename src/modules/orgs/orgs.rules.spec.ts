import { describe, expect, it } from 'vitest';
import type { OrgRow } from './orgs.tables.js';
import { isConsumerMailDomain, isIanaTimezone, phase0Missing, slugFormatProblem, trialDateOk } from './orgs.rules.js';

const org = (over: Partial<OrgRow> = {}): OrgRow =>
  ({
    id: 'x',
    legalName: 'Acme',
    slug: 'acme',
    industry: 'technology',
    corporateDomains: ['acme.example.com'],
    adminEmail: 'admin@acme.example.com',
    website: 'https://acme.example.com',
    timezone: 'Europe/Paris',
    trialEndDate: null,
    trialMode: 'default',
    status: 'pending_am_setup',
    ...over,
  }) as OrgRow;

describe('org rules (spec 2.1, 4.2)', () => {
  it('checks the slug pattern at the lengths 2, 3, 63 and 64, and the reserved words', () => {
    expect(slugFormatProblem('ab')).toBe('invalid_format');
    expect(slugFormatProblem('abc')).toBeNull();
    expect(slugFormatProblem('a'.repeat(63))).toBeNull();
    expect(slugFormatProblem('a'.repeat(64))).toBe('invalid_format');
    expect(slugFormatProblem('-abc')).toBe('invalid_format');
    expect(slugFormatProblem('abc-')).toBe('invalid_format');
    expect(slugFormatProblem('Abc')).toBe('invalid_format');
    expect(slugFormatProblem('a-b-c')).toBeNull();
    expect(slugFormatProblem('admin')).toBe('reserved_word');
    expect(slugFormatProblem('www')).toBe('reserved_word');
  });

  it('blocks personal consumer-mail domains from the maintained list', () => {
    for (const d of ['gmail.com', 'yahoo.com', 'outlook.com', 'hotmail.com', 'icloud.com']) expect(isConsumerMailDomain(d)).toBe(true);
    expect(isConsumerMailDomain('acme.example.com')).toBe(false);
  });

  it('accepts IANA timezones only', () => {
    expect(isIanaTimezone('Europe/Paris')).toBe(true);
    expect(isIanaTimezone('America/Argentina/Buenos_Aires')).toBe(true);
    expect(isIanaTimezone('UTC')).toBe(true);
    expect(isIanaTimezone('Mars/Olympus')).toBe(false);
    expect(isIanaTimezone('CEST')).toBe(false);
  });

  it('wants a trial end date strictly in the future', () => {
    const now = new Date('2026-11-22T12:00:00Z');
    expect(trialDateOk(null, now)).toBe(true);
    expect(trialDateOk('2026-11-22', now)).toBe(false);
    expect(trialDateOk('2026-11-21', now)).toBe(false);
    expect(trialDateOk('2026-11-23', now)).toBe(true);
  });

  it('lists what the Phase 0 gate misses; Specialist, Experts and trial date are never required', () => {
    expect(phase0Missing(org(), 'Demo AM', new Date())).toEqual([]);
    expect(phase0Missing(org(), '', new Date())).toEqual(['amProfileName']);
    expect(phase0Missing(org({ corporateDomains: [], timezone: '' }), 'AM', new Date())).toEqual(['corporateDomains', 'timezone']);
    expect(phase0Missing(org({ trialEndDate: '2000-01-01' }), 'AM', new Date())).toEqual(['trialEndDate']);
  });
});
