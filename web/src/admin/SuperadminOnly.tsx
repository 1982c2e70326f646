import { Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { useCurrentUser } from '../auth/current-user';
import { Page } from '../layout/Page';

/** The user administration pages are SuperAdmin surfaces (spec 5.1); other ops roles get a note. */
export function SuperadminOnly({ title, children }: { title: string; children: ReactNode }) {
  const user = useCurrentUser();
  if (user.platformRole !== 'superadmin') {
    return (
      <Page title={title}>
        <Text c="dimmed">This page is for SuperAdmins.</Text>
      </Page>
    );
  }
  return <>{children}</>;
}
