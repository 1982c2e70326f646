import { Alert, Anchor, Button, Center, Loader } from '@mantine/core';
import { Link } from 'react-router';
import { ApiError } from '../api/client';
import { isMissingEndpoint } from './errors';

/**
 * The error state of a read; a route the server lacks says so plainly, and a suspended org
 * (403 `org_suspended`) points to the billing settings, which stay open.
 */
export function QueryAlert({ title, error, retry }: { title: string; error: unknown; retry?: () => void }) {
  if (!error) return null;
  const message = isMissingEndpoint(error) ? 'The server does not offer this yet (the endpoint answered 404 "Route not found").' : error instanceof Error ? error.message : 'Something went wrong.';
  return (
    <Alert color="red" role="alert" title={title}>
      {message}
      {error instanceof ApiError && error.code === 'org_suspended' && (
        <div>
          <Anchor component={Link} to="/client/settings/billing" size="sm" data-testid="org-suspended-billing-link">
            Open billing settings
          </Anchor>
        </div>
      )}
      {retry && (
        <div>
          <Button mt="sm" size="xs" variant="default" onClick={retry}>
            Try again
          </Button>
        </div>
      )}
    </Alert>
  );
}

export function SectionLoader({ label }: { label: string }) {
  return (
    <Center py="lg">
      <Loader size="sm" role="status" aria-label={label} />
    </Center>
  );
}
