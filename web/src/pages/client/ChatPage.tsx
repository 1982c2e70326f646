import { Text } from '@mantine/core';
import { WhoIsLoggedInCard } from '../../auth/WhoIsLoggedInCard';
import { Page } from '../../layout/Page';
import { TrialBanner } from './TrialBanner';

export function ChatPage() {
  return (
    <Page title="Chat">
      <TrialBanner />
      <Text c="dimmed">Your conversations with your Specialists will appear here.</Text>
      <WhoIsLoggedInCard />
    </Page>
  );
}
