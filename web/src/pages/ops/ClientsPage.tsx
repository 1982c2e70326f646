import { Text } from '@mantine/core';
import { WhoIsLoggedInCard } from '../../auth/WhoIsLoggedInCard';
import { Page } from '../../layout/Page';

export function ClientsPage() {
  return (
    <Page title="Clients">
      <Text c="dimmed">The client organizations you manage will be listed here.</Text>
      <WhoIsLoggedInCard />
    </Page>
  );
}
