import { Alert, Button, Group, Text } from '@mantine/core';
import { Link } from 'react-router';
import { ApiError } from '../../api/client';

interface Problem {
  code: string;
  title: string;
  message: string;
  signIn?: boolean;
}

/**
 * What a refused invite means for the client: unknown (404, or a malformed token in the link),
 * expired (410 `invite_expired`) or used (410 `invite_used`: the setup is done, or the code
 * already signed in). Null for any other error, which belongs to the form that caused it.
 */
export function inviteProblemOf(error: unknown, during: 'link' | 'sign-in' | 'complete'): Problem | null {
  if (!(error instanceof ApiError)) return null;
  if (error.code === 'invite_expired') {
    return {
      code: error.code,
      title: 'This invite has expired',
      message: 'Onboarding links are valid for 7 days. Ask your account manager to resend the invite: the same link will then work again.',
    };
  }
  if (error.code === 'invite_used') {
    return during === 'sign-in'
      ? {
          code: error.code,
          title: 'This invite’s code has already been used',
          message: 'Someone already signed in with the onboarding code of this invite. Sign in with your email address (choose “Email code”), then open this link again to finish the setup.',
          signIn: true,
        }
      : {
          code: error.code,
          title: 'This invite has already been used',
          message: 'Your workspace is already set up. Sign in with your email address and password.',
          signIn: true,
        };
  }
  if (error.statusCode === 404 || (error.statusCode === 400 && during === 'link')) return unknownLink;
  return null;
}

const unknownLink: Problem = {
  code: 'not_found',
  title: 'This onboarding link is not valid',
  message: 'We could not find this invite. Open the whole link from your invite email, or ask your account manager to send it again.',
};

/** The page's answer to a link that cannot be used; `problem` defaults to an unknown link. */
export function InviteProblem({ problem = unknownLink }: { problem?: Problem }) {
  return (
    <Alert color={problem.code === 'invite_used' ? 'blue' : 'red'} role="alert" title={problem.title} data-testid="invite-problem" data-code={problem.code}>
      <Text size="sm">{problem.message}</Text>
      {problem.signIn && (
        <Group mt="sm">
          <Button component={Link} to="/login" size="xs">
            Go to sign in
          </Button>
        </Group>
      )}
    </Alert>
  );
}
