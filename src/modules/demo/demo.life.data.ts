import type { ConversationChannel } from '../../contracts/conversations.js';

/** The demo org's second Specialist (the primary is Émilie). */
export const DEMO_SECOND_SPECIALIST = 'jean-luc-moreau';
/** How long the demo org has been a client: its Specialists, rates and activation are dated back so. */
export const DEMO_CLIENT_SINCE_DAYS = 75;
/** How far back the message history and the cost ledger go. */
export const DEMO_HISTORY_DAYS = 30;

/** What becomes of a demo thread once its history is written, through the real services. */
export type DemoOutcome = 'escalated' | 'pending' | 'expert_reply' | 'resolved' | 'snoozed';

export interface DemoThread {
  subject: string;
  specialist: 'primary' | 'second';
  channel: ConversationChannel;
  /** Who wrote from the portal (web threads): the demo client or the org admin. */
  author: 'client' | 'org_admin';
  /** Client message, Specialist reply: one exchange per entry. */
  exchanges: Array<[string, string]>;
  outcome: DemoOutcome;
  /** The request for a human (escalated) or the Expert's follow-up (expert_reply). */
  followUp?: string;
}

export const DEMO_THREADS: DemoThread[] = [
  {
    subject: 'The March invoice looks wrong',
    specialist: 'primary',
    channel: 'web',
    author: 'org_admin',
    exchanges: [
      ['Our March invoice shows two lines for the same service. Can you check?', 'I see two lines dated 3 and 17 March. The second one looks like a duplicate; I have noted it for a review.'],
      ['Thanks. Can we get a credit note for the duplicate?', 'A credit note needs an approval from the billing team. I have prepared the details: amount, date and reference.'],
    ],
    outcome: 'escalated',
    followUp: 'Please have a person confirm the credit note before the end of the month.',
  },
  {
    subject: 'Translate the welcome email into French',
    specialist: 'primary',
    channel: 'web',
    author: 'client',
    exchanges: [
      ['Could you translate our welcome email for new customers into French?', 'Bien sûr! Here is a first version, with a warm but professional tone. Tell me if you prefer "tu" over "vous".'],
      ['Keep "vous", and make the subject line shorter please.', 'Done: « Bienvenue chez Acme » as the subject, and the body keeps "vous" throughout.'],
    ],
    outcome: 'expert_reply',
    followUp: 'I double-checked the French version with our style guide: I changed "courriel" to "e-mail" in two places, as your other emails use it. It is ready to send.',
  },
  {
    subject: 'Delays at the Lyon warehouse',
    specialist: 'second',
    channel: 'email',
    author: 'client',
    exchanges: [
      [
        'Three orders from the Lyon warehouse are late this week. What can we tell the customers?',
        'A short apology with a new delivery date works best. I drafted one per order, with the carrier reference.',
      ],
      ['The carrier confirmed delivery for Friday.', 'Good news. I updated the three messages with Friday as the delivery date.'],
    ],
    outcome: 'resolved',
  },
  {
    subject: 'Wording of the refund policy',
    specialist: 'primary',
    channel: 'messaging-a',
    author: 'client',
    exchanges: [['Can you make our refund policy easier to read?', 'Here is a shorter version in five plain sentences, with the 30-day window first.']],
    outcome: 'snoozed',
  },
  {
    subject: 'Weekly supplier report',
    specialist: 'second',
    channel: 'web',
    author: 'client',
    exchanges: [
      ['Please summarise the supplier delays of last week.', 'Two suppliers were late: one by two days (packaging), one by a week (spare parts). Everything else arrived on time.'],
      ['Which supplier should we follow up with first?', 'The spare-parts supplier: their delay blocks the repair orders.'],
    ],
    outcome: 'expert_reply',
    followUp: 'I called the spare-parts supplier: the parts left their warehouse this morning and should arrive on Thursday.',
  },
  {
    subject: 'Quarterly newsletter draft',
    specialist: 'primary',
    channel: 'web',
    author: 'org_admin',
    exchanges: [
      ['Draft the intro of our quarterly newsletter, please.', 'Here is a three-paragraph intro: the quarter in numbers, the new product line, and a thank-you to our customers.'],
      ['Perfect, thank you!', 'Glad it helps. I saved the draft in this conversation for later edits.'],
    ],
    outcome: 'resolved',
  },
  {
    subject: 'A customer complaint about a late delivery',
    specialist: 'primary',
    channel: 'web',
    author: 'client',
    exchanges: [
      ['A customer is upset about a delivery that is two weeks late. How should we answer?', 'Start with an apology, give the new date, and offer free shipping on the next order. Here is a draft.'],
    ],
    outcome: 'pending',
  },
  {
    subject: 'Stock count for the spring season',
    specialist: 'second',
    channel: 'email',
    author: 'client',
    exchanges: [
      ['Can you prepare a checklist for the spring stock count?', 'Here is a checklist in four parts: before, during, after the count, and the report.'],
      ['Add a line about damaged goods.', 'Added: damaged goods are counted apart and photographed.'],
    ],
    outcome: 'pending',
  },
];

/** The model the demo ledger prices its calls with (from the price table). */
export const DEMO_MODEL = { provider: 'anthropic', model: 'claude-haiku-4-5' } as const;
