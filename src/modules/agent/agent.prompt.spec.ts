import { describe, expect, it } from 'vitest';
import { PROMPT_BRIEF_LIMITS, buildSystemPrompt } from './agent.prompt.js';
import { localTimeIn } from './local-time.js';

const base = { specialist: { name: 'Omar Haddad', persona: null }, org: { legalName: 'Hooli', timezone: 'America/Los_Angeles' }, tools: [] };

describe('buildSystemPrompt', () => {
  it('names the Specialist, the org, the default persona, and says when there is no brief', () => {
    const p = buildSystemPrompt({ ...base, briefs: [] });
    expect(p).toMatch(/^Your name is Omar Haddad\. You are a Specialist working for the client organization "Hooli" \(timezone America\/Los_Angeles\)\./);
    expect(p).toContain('precise, friendly professional');
    expect(p).toContain('Client briefs: none has been written yet.');
    expect(p).not.toContain('Tools you may use');
  });

  it('includes the briefs oldest first and the offered tools', () => {
    const p = buildSystemPrompt({
      ...base,
      briefs: [
        { title: 'One', content: 'First' },
        { title: 'Two', content: 'Second' },
      ],
      tools: [{ name: 'get_org_local_time', description: 'Time' }],
    });
    expect(p.indexOf('### One')).toBeLessThan(p.indexOf('### Two'));
    expect(p).toContain('- get_org_local_time: Time');
  });

  it('bounds the briefs it includes', () => {
    const big = 'x'.repeat(PROMPT_BRIEF_LIMITS.maxChars);
    const briefs = Array.from({ length: PROMPT_BRIEF_LIMITS.maxBriefs + 2 }, (_, i) => ({ title: `B${i}`, content: i === 0 ? 'short' : big }));
    const p = buildSystemPrompt({ ...base, briefs, briefTool: 'read_client_brief' });
    expect(p.length).toBeLessThan(PROMPT_BRIEF_LIMITS.maxChars + 5_000);
    expect(p).toContain('[shortened; read_client_brief returns it whole]');
    expect(p).toContain('(2 more not shown; read_client_brief lists them)');
  });
});

describe('localTimeIn', () => {
  it('gives the wall clock of the timezone', () => {
    const at = new Date('2025-01-15T13:05:00Z');
    expect(localTimeIn('Europe/Paris', at)).toEqual({ timezone: 'Europe/Paris', date: '2025-01-15', time: '14:05', weekday: 'Wednesday', utcOffset: 'GMT+01:00', utc: '2025-01-15T13:05:00.000Z' });
    expect(localTimeIn('America/Los_Angeles', at)).toMatchObject({ date: '2025-01-15', time: '05:05', utcOffset: 'GMT-08:00' });
    expect(localTimeIn('UTC', at)).toMatchObject({ time: '13:05', utcOffset: 'GMT+00:00' });
  });
});
