import { Alert, Button, Card, Code, Group, Image, List, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import type { TotpSetupResponse } from '@contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { twoFactorApi, type SecondFactorInput } from '../auth/auth.api';

const STATUS_KEY = ['auth', '2fa'] as const;

/** A 6-digit code from the app, or (longer) a recovery code. */
function factorOf(code: string): SecondFactorInput {
  const trimmed = code.trim();
  return /^\d{6}$/.test(trimmed) ? { totpCode: trimmed } : { recoveryCode: trimmed };
}

function RecoveryCodes({ codes }: { codes: string[] }) {
  return (
    <Alert color="yellow" title="Save your recovery codes" data-testid="recovery-codes">
      <Text size="sm" mb="xs">
        Each code signs you in once if you lose your authenticator. They are shown only now.
      </Text>
      <SimpleGrid cols={2} spacing={4}>
        {codes.map((code) => (
          <Code key={code}>{code}</Code>
        ))}
      </SimpleGrid>
    </Alert>
  );
}

/** Two-factor sign-in (spec 4.3): set up with a QR code, turn on with a first code, recovery codes, turn off. */
export function TwoFactorSection() {
  const queryClient = useQueryClient();
  const status = useQuery({ queryKey: STATUS_KEY, queryFn: ({ signal }) => twoFactorApi.status(signal) });
  const [setup, setSetup] = useState<TotpSetupResponse | null>(null);
  const [code, setCode] = useState('');
  const [freshCodes, setFreshCodes] = useState<string[] | null>(null);
  const refresh = () => Promise.all([queryClient.invalidateQueries({ queryKey: STATUS_KEY }), queryClient.invalidateQueries({ queryKey: ['auth', 'me'] })]);

  const start = useMutation({
    mutationFn: twoFactorApi.setup,
    onSuccess: (s) => {
      setSetup(s);
      setCode('');
    },
  });
  const enable = useMutation({
    mutationFn: () => twoFactorApi.verify(code.trim()),
    onSuccess: async () => {
      setFreshCodes(setup?.recoveryCodes ?? null);
      setSetup(null);
      setCode('');
      await refresh();
    },
  });
  const disable = useMutation({
    mutationFn: () => twoFactorApi.disable(factorOf(code)),
    onSuccess: async () => {
      setCode('');
      setFreshCodes(null);
      await refresh();
    },
  });
  const renew = useMutation({
    mutationFn: () => twoFactorApi.renewRecoveryCodes(factorOf(code)),
    onSuccess: async (r) => {
      setCode('');
      setFreshCodes(r.recoveryCodes);
      await refresh();
    },
  });
  const error = start.error ?? enable.error ?? disable.error ?? renew.error;

  return (
    <Card withBorder data-testid="two-factor">
      <Stack>
        <Title order={2} size="h4">
          Two-factor sign-in
        </Title>
        {error && (
          <Alert color="red" role="alert">
            {error.message}
          </Alert>
        )}
        {freshCodes && <RecoveryCodes codes={freshCodes} />}
        {status.data?.enabled ? (
          <>
            <Text size="sm" data-testid="two-factor-status">
              On. Signing in asks for a code from your authenticator app. {status.data.recoveryCodesLeft} recovery codes left.
            </Text>
            <Group align="flex-end">
              <TextInput label="Code from your app, or a recovery code" value={code} onChange={(e) => setCode(e.currentTarget.value)} w={300} />
              <Button variant="default" disabled={!code.trim()} loading={renew.isPending} onClick={() => renew.mutate()}>
                New recovery codes
              </Button>
              <Button color="red" variant="light" disabled={!code.trim()} loading={disable.isPending} onClick={() => disable.mutate()}>
                Turn off
              </Button>
            </Group>
          </>
        ) : setup ? (
          <>
            <Text size="sm">Scan the QR code with an authenticator app (or enter the key), then type the 6-digit code it shows.</Text>
            <Group align="flex-start">
              <Image src={setup.qrCodeDataUrl} alt="QR code for your authenticator app" w={180} h={180} />
              <Stack gap={4}>
                <Text size="sm" c="dimmed">
                  Key
                </Text>
                <Code data-testid="totp-secret">{setup.secret}</Code>
              </Stack>
            </Group>
            <List size="sm">
              <List.Item>Your recovery codes appear once two-factor sign-in is on.</List.Item>
            </List>
            <Group align="flex-end">
              <TextInput label="Code from your app" inputMode="numeric" maxLength={6} value={code} onChange={(e) => setCode(e.currentTarget.value)} w={200} />
              <Button disabled={!/^\d{6}$/.test(code.trim())} loading={enable.isPending} onClick={() => enable.mutate()}>
                Turn on
              </Button>
              <Button variant="subtle" onClick={() => setSetup(null)}>
                Cancel
              </Button>
            </Group>
          </>
        ) : (
          <Group justify="space-between">
            <Text size="sm" data-testid="two-factor-status">
              Off. Add a code from an authenticator app to your sign-in.
            </Text>
            <Button onClick={() => start.mutate()} loading={start.isPending} disabled={status.isPending}>
              Set up two-factor sign-in
            </Button>
          </Group>
        )}
      </Stack>
    </Card>
  );
}
