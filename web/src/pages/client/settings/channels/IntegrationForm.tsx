import { Alert, Button, Group, Stack, Switch, TagsInput, TextInput } from '@mantine/core';
import type { ChannelName, IntegrationDto } from '@contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import type { IntegrationFields } from '../../../../channels/channel-info';
import { channelKeys, channelsApi } from '../../../../channels/channels.api';
import { byFormKey, configKey, initialValues, secretKey, toCreateBody, toUpdateBody, validate, type IntegrationFormValues } from '../../../../channels/integration-form';
import { apiFieldErrors, unshownErrorMessage, type FieldErrors } from '../../../../ops/errors';
import { PasswordField } from '../../../../forms/PasswordField';

interface Props {
  orgId: string;
  channel: ChannelName;
  fields: IntegrationFields;
  /** The stored integration when editing; absent when connecting. */
  integration?: IntegrationDto;
  onDone: () => void;
}

/** Connect or edit one channel: its id, config and secrets (write-only: an input replaces that secret). */
export function IntegrationForm({ orgId, channel, fields, integration, onDone }: Props) {
  const queryClient = useQueryClient();
  const [values, setValues] = useState<IntegrationFormValues>(() => initialValues(fields, integration));
  const [clientErrors, setClientErrors] = useState<FieldErrors>({});

  const save = useMutation({
    mutationFn: () => (integration ? channelsApi.update(orgId, integration.id, toUpdateBody(fields, values, integration)) : channelsApi.connect(orgId, toCreateBody(channel, fields, values))),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: channelKeys.org(orgId) });
      onDone();
    },
  });

  const serverErrors = byFormKey(apiFieldErrors(save.error));
  const errors = { ...serverErrors, ...clientErrors };
  const shownKeys = new Set([...(fields.externalId ? ['externalId'] : []), ...fields.config.map((f) => configKey(f.key)), ...fields.secrets.map((f) => secretKey(f.key))]);
  const formError = unshownErrorMessage(save.error, serverErrors, (key) => shownKeys.has(key));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const body = integration ? toUpdateBody(fields, values, integration) : toCreateBody(channel, fields, values);
    const found = validate(fields, values, body, integration);
    setClientErrors(found);
    if (Object.keys(found).length === 0) save.mutate();
  };

  const setConfig = (key: string, value: string | string[]) => setValues((v) => ({ ...v, config: { ...v.config, [key]: value } }));
  const setSecret = (key: string, value: string) => setValues((v) => ({ ...v, secrets: { ...v.secrets, [key]: value } }));

  return (
    <form onSubmit={submit} noValidate aria-label={integration ? 'Edit the integration' : 'Connect the channel'} data-testid="integration-form">
      <Stack gap="sm">
        {fields.externalId && (
          <TextInput
            label={fields.externalId.label}
            description={fields.externalId.description}
            withAsterisk={fields.externalId.required}
            value={values.externalId}
            onChange={(event) => setValues({ ...values, externalId: event.currentTarget.value })}
            error={errors.externalId}
          />
        )}
        {fields.config.map((field) =>
          field.kind === 'numbers' ? (
            <TagsInput
              key={field.key}
              label={field.label}
              description={field.description}
              withAsterisk={field.required}
              value={values.config[field.key] as string[]}
              onChange={(value) => setConfig(field.key, value)}
              splitChars={[',', ' ', ';']}
              clearable
              error={errors[configKey(field.key)]}
            />
          ) : (
            <TextInput
              key={field.key}
              label={field.label}
              description={field.description}
              withAsterisk={field.required}
              value={values.config[field.key] as string}
              onChange={(event) => setConfig(field.key, event.currentTarget.value)}
              error={errors[configKey(field.key)]}
            />
          ),
        )}
        {fields.secrets.map((field) => {
          const stored = integration?.secretNames.includes(field.key) ?? false;
          return (
            <PasswordField
              key={field.key}
              label={field.label}
              description={stored ? `${field.description} A value is stored; type a new one to replace it, or leave this empty to keep it.` : field.description}
              placeholder={stored ? 'Stored (hidden)' : undefined}
              withAsterisk={field.required && !stored}
              autoComplete="new-password"
              value={values.secrets[field.key] ?? ''}
              onChange={(event) => setSecret(field.key, event.currentTarget.value)}
              error={errors[secretKey(field.key)]}
            />
          );
        })}
        {integration && (
          <Switch label="Enabled: inbound messages are routed to your organization" checked={values.enabled} onChange={(event) => setValues({ ...values, enabled: event.currentTarget.checked })} />
        )}
        {formError && (
          <Alert color="red" role="alert" title={integration ? 'Could not save the integration' : 'Could not connect the channel'}>
            {formError}
          </Alert>
        )}
        <Group>
          <Button type="submit" loading={save.isPending}>
            {integration ? 'Save' : 'Connect'}
          </Button>
          <Button variant="default" onClick={onDone} disabled={save.isPending}>
            Cancel
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
