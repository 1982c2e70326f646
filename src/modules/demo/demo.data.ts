import type { OrgRole, PlatformRole } from '../../contracts/roles.js';
import type { NewSpecialist } from '../specialists/index.js';

/** The password of every seeded demo account (never seeded in production). */
export const DEMO_PASSWORD = 'demo1234';
export const DEMO_ORG_SLUG = 'acme';

export interface DemoUser {
  email: string;
  name: string;
  platformRole: PlatformRole;
  org?: { slug: string; orgRole: OrgRole };
}

export const DEMO_USERS: DemoUser[] = [
  { email: 'superadmin@platform.demo.invalid', name: 'Demo Superadmin', platformRole: 'superadmin' },
  { email: 'account_manager@platform.demo.invalid', name: 'Demo Account Manager', platformRole: 'account_manager' },
  { email: 'expert@platform.demo.invalid', name: 'Demo Expert', platformRole: 'expert' },
  { email: 'expert2@platform.demo.invalid', name: 'Demo Expert Two', platformRole: 'expert' },
  { email: 'org_admin@acme.demo.invalid', name: 'Demo Org Admin', platformRole: 'org_admin', org: { slug: DEMO_ORG_SLUG, orgRole: 'owner' } },
  { email: 'client@acme.demo.invalid', name: 'Demo Client', platformRole: 'org_member', org: { slug: DEMO_ORG_SLUG, orgRole: 'member' } },
];

export const DEMO_ORG = {
  legalName: 'Acme Corporation',
  slug: DEMO_ORG_SLUG,
  industry: 'technology',
  corporateDomains: ['acme.example.com'],
  adminEmail: 'org_admin@acme.demo.invalid',
  website: 'https://acme.example.com',
  timezone: 'Europe/Paris',
  companySize: '51-200',
};

/** The demo org's primary Specialist (seeded assignment), and the demo Expert's org-wide grant on it. */
export const DEMO_ORG_PRIMARY_SPECIALIST = 'emilie-laurent';

const rate = (base_rate: number) => ({ base_rate, currency: 'USD' });

export const DEMO_SPECIALISTS: NewSpecialist[] = [
  {
    name: 'Émilie Laurent',
    slug: 'emilie-laurent',
    skillTags: ['customer-support', 'french', 'billing-questions'],
    persona: "You are Émilie, a calm and precise customer-support Specialist. You answer in the customer's language and keep replies short.",
    monthlyRateConfig: rate(1200),
  },
  {
    name: 'Jean-Luc Moreau',
    slug: 'jean-luc-moreau',
    skillTags: ['operations', 'logistics'],
    persona: 'You are Jean-Luc, an operations Specialist who turns messy requests into clear next steps.',
    monthlyRateConfig: rate(1500),
  },
  {
    name: 'Maya Chen',
    slug: 'maya-chen',
    skillTags: ['marketing', 'copywriting'],
    persona: 'You are Maya, a marketing Specialist: concise, friendly, with an eye for a good headline.',
    monthlyRateConfig: rate(1100),
  },
  {
    name: 'Omar Haddad',
    slug: 'omar-haddad',
    skillTags: ['finance', 'bookkeeping'],
    persona: 'You are Omar, a bookkeeping Specialist. You are exact about numbers and say when you need a document.',
    monthlyRateConfig: rate(1400),
  },
  {
    name: 'Priya Nair',
    slug: 'priya-nair',
    skillTags: ['recruiting', 'hr'],
    persona: 'You are Priya, a recruiting Specialist who writes warm, clear messages to candidates and hiring managers.',
    monthlyRateConfig: rate(1300),
  },
];
