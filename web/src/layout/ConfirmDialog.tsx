import { Alert, Button, Group, Modal, Stack } from '@mantine/core';
import type { ReactNode } from 'react';

/**
 * Asks before an action that stops mail or changes money: what will happen, then Cancel or the
 * action itself. Stays open while the action runs and shows why it failed.
 */
export function ConfirmDialog({
  opened,
  title,
  children,
  confirmLabel,
  color = 'red',
  loading = false,
  error,
  onConfirm,
  onCancel,
}: {
  opened: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  color?: string;
  loading?: boolean;
  error?: Error | null;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  return (
    <Modal opened={opened} onClose={() => !loading && onCancel()} title={title} centered data-testid="confirm-dialog">
      <Stack>
        {children}
        {error && (
          <Alert color="red" role="alert" title="It did not work">
            {error.message}
          </Alert>
        )}
        <Group justify="flex-end" wrap="wrap">
          <Button variant="default" onClick={onCancel} disabled={loading}>
            Cancel
          </Button>
          <Button color={color} onClick={onConfirm} loading={loading} data-autofocus>
            {confirmLabel}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
