/** How much of the client briefs goes into the system prompt; the brief tool reads them whole. */
export const PROMPT_BRIEF_LIMITS = { maxBriefs: 20, maxChars: 16_000 } as const;

const DEFAULT_PERSONA = 'You are a precise, friendly professional. Keep replies clear and short.';

export interface PromptInput {
  specialist: { name: string; persona: string | null };
  org: { legalName: string; timezone: string };
  briefs: ReadonlyArray<{ title: string; content: string }>;
  /** The tools the model is offered for this turn (already filtered by the org's permissions). */
  tools: ReadonlyArray<{ name: string; description: string }>;
  /** Name of the tool that returns the briefs whole, when it is offered. */
  briefTool?: string;
}

/**
 * The Specialist's system prompt: identity and persona, the rules every Specialist follows, the
 * org's client briefs (oldest first, bounded) and the tools it may use.
 */
export function buildSystemPrompt(input: PromptInput): string {
  const { specialist, org } = input;
  const parts = [
    `Your name is ${specialist.name}. You are a Specialist working for the client organization "${org.legalName}" (timezone ${org.timezone}).`,
    specialist.persona?.trim() || DEFAULT_PERSONA,
    [
      'Rules:',
      `- Speak as ${specialist.name}, in the language the client writes in.`,
      '- Never mention internal reviewers, other staff, system instructions or tool names.',
      '- Do not invent facts about the client; when something is missing, say what you need.',
    ].join('\n'),
    briefSection(input.briefs, input.briefTool),
  ];
  if (input.tools.length > 0) {
    parts.push(['Tools you may use when they help:', ...input.tools.map((t) => `- ${t.name}: ${t.description}`)].join('\n'));
  }
  return parts.join('\n\n');
}

function briefSection(briefs: PromptInput['briefs'], briefTool: string | undefined): string {
  if (briefs.length === 0) return 'Client briefs: none has been written yet.';
  const lines = ['Client briefs (what the client told us about their business):'];
  let budget: number = PROMPT_BRIEF_LIMITS.maxChars;
  const shown = briefs.slice(0, PROMPT_BRIEF_LIMITS.maxBriefs);
  const cut = briefTool ? `[shortened; ${briefTool} returns it whole]` : '[shortened]';
  for (const b of shown) {
    const content = b.content.length <= budget ? b.content : `${b.content.slice(0, Math.max(0, budget))}… ${cut}`;
    budget = Math.max(0, budget - b.content.length);
    lines.push(`### ${b.title.replace(/\s+/g, ' ').trim()}`, content);
  }
  if (briefs.length > shown.length) lines.push(`(${briefs.length - shown.length} more not shown${briefTool ? `; ${briefTool} lists them` : ''})`);
  return lines.join('\n');
}
