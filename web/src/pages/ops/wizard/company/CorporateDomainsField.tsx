import { Badge, Button, CloseButton, Group, Input, Stack, TextInput } from '@mantine/core';
import { MAX_CORPORATE_DOMAINS } from '@contracts';
import type { FieldErrors } from '../../../../ops/errors';

/** Corporate email domains: the first is the primary, at most 10 (spec 2.1). */
export function CorporateDomainsField({ value, onChange, errors }: { value: string[]; onChange: (domains: string[]) => void; errors: FieldErrors }) {
  const setAt = (index: number, domain: string) => onChange(value.map((d, i) => (i === index ? domain : d)));
  const removeAt = (index: number) => onChange(value.filter((_, i) => i !== index));

  return (
    <Input.Wrapper
      label="Corporate email domains"
      description={`The first is the primary domain; up to ${MAX_CORPORATE_DOMAINS}. Personal mail domains are not allowed.`}
      required
      error={errors.corporateDomains}
    >
      <Stack gap="xs" mt={4} data-testid="corporate-domains">
        {value.map((domain, index) => (
          <Group key={index} gap="xs" align="flex-start" wrap="nowrap">
            <TextInput
              aria-label={index === 0 ? 'Primary domain' : `Secondary domain ${index}`}
              placeholder="example.com"
              value={domain}
              onChange={(event) => setAt(index, event.currentTarget.value)}
              error={errors[`corporateDomains.${index}`]}
              style={{ flex: 1 }}
              autoComplete="off"
              spellCheck={false}
              rightSectionWidth={index === 0 ? 80 : undefined}
              rightSection={
                index === 0 ? (
                  <Badge size="xs" variant="light">
                    Primary
                  </Badge>
                ) : undefined
              }
            />
            <CloseButton aria-label={`Remove ${domain || `domain ${index + 1}`}`} disabled={value.length === 1} onClick={() => removeAt(index)} mt={6} />
          </Group>
        ))}
        <Group>
          <Button variant="default" size="xs" disabled={value.length >= MAX_CORPORATE_DOMAINS} onClick={() => onChange([...value, ''])}>
            Add domain
          </Button>
        </Group>
      </Stack>
    </Input.Wrapper>
  );
}
