import { Alert, Avatar, Button, Group, Modal, NumberInput, SimpleGrid, Stack, TagsInput, Text, TextInput, Textarea } from '@mantine/core';
import { MAX_SKILL_TAGS, type SpecialistDto } from '@contracts';
import { useMediaQuery } from '@mantine/hooks';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { adminApi, adminKeys } from '../../../admin/admin.api';
import { toast } from '../../../layout/toast';
import { apiFieldErrors, type FieldErrors } from '../../../ops/errors';
import { RATE_LIMITS_TEXT, checkCreate, checkUpdate, draftOf, emptyDraft, handleFrom, type SpecialistDraft } from './specialist-form';

/** API field names -> the form's boxes. */
const API_FIELDS: Record<string, keyof SpecialistDraft> = {
  'monthly_rate_config.base_rate': 'rateAmount',
  'monthly_rate_config.currency': 'currency',
  monthly_rate_config: 'rateAmount',
};

/**
 * Create or edit a catalog Specialist (spec 2.2). Every field is checked with the API's rules on
 * submit and all errors are shown at once; an edit sends only what changed. Mounted per opening.
 */
export function SpecialistFormModal({ specialist, onClose }: { specialist: SpecialistDto | null; onClose: () => void }) {
  const [draft, setDraft] = useState<SpecialistDraft>(specialist ? draftOf(specialist) : emptyDraft());
  const [handleTouched, setHandleTouched] = useState(specialist !== null);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [unchanged, setUnchanged] = useState(false);
  const queryClient = useQueryClient();
  const phone = useMediaQuery('(max-width: 36em)');

  const save = useMutation({
    mutationFn: (body: Parameters<typeof adminApi.createSpecialist>[0]) => (specialist ? adminApi.updateSpecialist(specialist.id, body) : adminApi.createSpecialist(body)),
    onSuccess: async (saved) => {
      await queryClient.invalidateQueries({ queryKey: adminKeys.specialists });
      toast.success(specialist ? `${saved.name} is saved.` : `${saved.name} is in the catalog.`, specialist ? 'Specialist updated' : 'Specialist created');
      onClose();
    },
    onError: (error) => {
      const fields: FieldErrors = {};
      for (const [field, message] of Object.entries(apiFieldErrors(error))) fields[API_FIELDS[field] ?? field] = message;
      // A handle taken meanwhile comes back as a conflict without a field.
      if (Object.keys(fields).length === 0 && /slug/i.test((error as Error).message)) fields.slug = 'Another Specialist already has this handle.';
      setErrors(fields);
    },
  });

  const set = <K extends keyof SpecialistDraft>(key: K, value: SpecialistDraft[K]) => {
    setDraft((d) => ({ ...d, [key]: value, ...(key === 'name' && !handleTouched ? { slug: handleFrom(String(value)) } : {}) }));
    setUnchanged(false);
  };

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const checked = specialist ? checkUpdate(specialist, draft) : checkCreate(draft);
    if (!checked.ok) {
      setErrors(checked.errors);
      return;
    }
    setErrors({});
    if (Object.keys(checked.body).length === 0) {
      setUnchanged(true);
      return;
    }
    save.mutate(checked.body);
  };

  const shown = new Set<string>(['name', 'slug', 'avatarUrl', 'routingEmail', 'skillTags', 'persona', 'rateAmount', 'currency']);
  const otherErrors = Object.entries(errors).filter(([field]) => !shown.has(field.split('.')[0]!));
  const errorCount = Object.keys(errors).length;
  const formError = save.error && errorCount === 0 ? (save.error as Error).message : null;
  const skillError = Object.entries(errors).find(([field]) => field.startsWith('skillTags'))?.[1];

  return (
    <Modal opened onClose={onClose} title={specialist ? `Edit ${specialist.name}` : 'New Specialist'} size="lg" fullScreen={phone}>
      <form onSubmit={submit} noValidate aria-label={specialist ? 'Edit Specialist' : 'New Specialist'}>
        <Stack>
          {errorCount > 0 && (
            <Alert color="red" role="alert" title={errorCount === 1 ? 'One field needs a change' : `${errorCount} fields need a change`}>
              {otherErrors.length > 0 ? otherErrors.map(([, message]) => message).join(' ') : 'See the messages under the fields.'}
            </Alert>
          )}
          {formError && (
            <Alert color="red" role="alert" title="Could not save">
              {formError}
            </Alert>
          )}
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            <TextInput label="Name" required value={draft.name} onChange={(e) => set('name', e.currentTarget.value)} error={errors.name} maxLength={200} />
            <TextInput
              label="Handle"
              required
              description="Lowercase letters, digits and hyphens, 2 to 63 characters."
              value={draft.slug}
              onChange={(e) => {
                setHandleTouched(true);
                set('slug', e.currentTarget.value);
              }}
              error={errors.slug}
            />
          </SimpleGrid>
          <Group align="flex-start" wrap="nowrap">
            <Avatar src={/^https?:\/\/\S+$/i.test(draft.avatarUrl.trim()) ? draft.avatarUrl.trim() : null} name={draft.name || '?'} color="initials" size="lg" alt="" />
            <TextInput
              label="Avatar address"
              description="An http:// or https:// address of the picture clients see. Empty: the initials."
              placeholder="https://"
              value={draft.avatarUrl}
              onChange={(e) => set('avatarUrl', e.currentTarget.value)}
              error={errors.avatarUrl}
              style={{ flex: 1, minWidth: 0 }}
            />
          </Group>
          <TextInput
            label="Routing email"
            description="Where mail for this Specialist is routed. Optional."
            type="email"
            value={draft.routingEmail}
            onChange={(e) => set('routingEmail', e.currentTarget.value)}
            error={errors.routingEmail}
          />
          <TagsInput
            label="Skills"
            description={`Press Enter after each skill. Up to ${MAX_SKILL_TAGS}.`}
            value={draft.skillTags}
            onChange={(tags) => set('skillTags', tags)}
            error={skillError}
            clearable
          />
          <Textarea
            label="Persona"
            description="How the Specialist presents itself and answers: its voice, its expertise, what it never does."
            autosize
            minRows={3}
            maxRows={10}
            value={draft.persona}
            onChange={(e) => set('persona', e.currentTarget.value)}
            error={errors.persona}
          />
          <Group align="flex-start" grow preventGrowOverflow={false}>
            <NumberInput
              label="Catalog monthly rate"
              description={RATE_LIMITS_TEXT}
              value={draft.rateAmount}
              onChange={(value) => set('rateAmount', String(value))}
              clampBehavior="none"
              allowNegative
              decimalScale={2}
              thousandSeparator=","
              hideControls
              error={errors.rateAmount}
              style={{ flex: 2 }}
            />
            <TextInput
              label="Currency"
              description="3 letters, such as USD or EUR."
              value={draft.currency}
              onChange={(e) => set('currency', e.currentTarget.value.toUpperCase())}
              error={errors.currency}
              maxLength={3}
              style={{ flex: 1 }}
            />
          </Group>
          <Group justify="space-between">
            <Text size="sm" c="dimmed" role="status">
              {unchanged ? 'Nothing changed yet.' : ' '}
            </Text>
            <Group>
              <Button variant="default" onClick={onClose}>
                Cancel
              </Button>
              <Button type="submit" loading={save.isPending}>
                {specialist ? 'Save' : 'Create Specialist'}
              </Button>
            </Group>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
