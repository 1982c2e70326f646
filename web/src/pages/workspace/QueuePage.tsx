import { Text } from '@mantine/core';
import { WhoIsLoggedInCard } from '../../auth/WhoIsLoggedInCard';
import { Page } from '../../layout/Page';

export function QueuePage() {
  return (
    <Page title="Attention list">
      <Text c="dimmed">Conversations that need an Expert will be listed here.</Text>
      <WhoIsLoggedInCard />
    </Page>
  );
}
