import { Alert, Anchor, Center, Loader, Paper, Stack, Stepper, Text } from '@mantine/core';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useSession, useSignIn } from '../../auth/session';
import { PublicPage } from '../../layout/PublicPage';
import { onboardingApi, onboardingKeys, type OnboardingView } from '../../onboarding/onboarding.api';
import { apiFieldErrors, unshownErrorMessage, type FieldErrors } from '../../ops/errors';
import { QueryAlert } from '../../ops/QueryAlert';
import { InviteProblem, inviteProblemOf } from './InviteProblem';
import { InviteSignIn } from './InviteSignIn';
import {
  completePayloadOf,
  DONE_STEP,
  isShownField,
  onboardingFormOf,
  ONBOARDING_STEPS,
  plainFieldErrors,
  plainWords,
  stepOfErrors,
  TEAM_STEP,
  validateStep,
  WORKSPACE_STEP,
  type OnboardingValues,
} from './onboarding-form';
import { TeamStep } from './TeamStep';
import { WorkspaceStep } from './WorkspaceStep';

function Centered({ label }: { label: string }) {
  return (
    <Center py="xl">
      <Loader aria-label={label} />
    </Center>
  );
}

/** Done: the workspace is active; the session of the completion opens the client's landing. */
function DoneStep({ legalName, signInFailed }: { legalName: string; signInFailed: boolean }) {
  return (
    <Alert color="green" title="Your workspace is ready" data-testid="onboarding-done">
      <Text size="sm">{legalName} is set up and your trial has started.</Text>
      {signInFailed ? (
        <Anchor component={Link} to="/login" size="sm">
          Sign in to open your workspace
        </Anchor>
      ) : (
        <Text size="sm">Opening your chat…</Text>
      )}
    </Alert>
  );
}

/** The three steps for a valid invite: the admin signs in with the code, confirms, completes. */
function OnboardingFlow({ token, view }: { token: string; view: OnboardingView }) {
  const session = useSession();
  const signIn = useSignIn();
  const [active, setActive] = useState(WORKSPACE_STEP);
  const [values, setValues] = useState<OnboardingValues>(() => onboardingFormOf(view));
  const [errors, setErrors] = useState<FieldErrors>({});
  const [signInFailed, setSignInFailed] = useState(false);
  const needsPick = !view.specialistPreassigned;

  const complete = useMutation({
    mutationFn: () => onboardingApi.complete(token, completePayloadOf(values, needsPick)),
    onSuccess: (result) => {
      setActive(DONE_STEP);
      signIn(result.token).catch(() => setSignInFailed(true));
    },
    onError: (error) => {
      const fieldErrors = plainFieldErrors(apiFieldErrors(error));
      setErrors(fieldErrors);
      const step = stepOfErrors(fieldErrors);
      if (step !== null) setActive(step);
    },
  });

  const change = (patch: Partial<OnboardingValues>) => {
    setValues((current) => ({ ...current, ...patch }));
    setErrors((current) => Object.fromEntries(Object.entries(current).filter(([field]) => !(field in patch))));
  };
  /** Moves on when the fields of `step` pass; else shows their problems. */
  const passes = (step: number): boolean => {
    const found = validateStep(step, values, needsPick);
    setErrors(found);
    return Object.keys(found).length === 0;
  };
  const finish = () => {
    if (!passes(WORKSPACE_STEP)) return setActive(WORKSPACE_STEP);
    if (passes(TEAM_STEP)) complete.mutate();
  };

  const problem = inviteProblemOf(complete.error, 'complete');
  if (problem) return <InviteProblem problem={problem} />;

  const adminSignedIn = session.status === 'signed-in' && session.user.email.toLowerCase() === view.adminEmail.toLowerCase();
  const otherUserEmail = session.status === 'signed-in' && !adminSignedIn ? session.user.email : undefined;
  const done = active === DONE_STEP;
  const unshown = unshownErrorMessage(complete.error, apiFieldErrors(complete.error), isShownField);
  const formError = unshown && plainWords(unshown);

  return (
    <Stepper
      active={active}
      onStepClick={(step) => {
        if (!done && step < active) setActive(step);
      }}
      allowNextStepsSelect={false}
      data-testid="onboarding-steps"
      data-active-step={ONBOARDING_STEPS[active]}
    >
      <Stepper.Step label={ONBOARDING_STEPS[WORKSPACE_STEP]} description="Company and subdomain">
        {session.status === 'loading' ? (
          <Centered label="Loading your session" />
        ) : adminSignedIn ? (
          <WorkspaceStep
            token={token}
            view={view}
            orgId={session.user.orgMemberships.find((m) => m.orgSlug === view.org.slug)?.orgId}
            values={values}
            errors={errors}
            onChange={change}
            onContinue={() => passes(WORKSPACE_STEP) && setActive(TEAM_STEP)}
          />
        ) : (
          <InviteSignIn token={token} adminEmail={view.adminEmail} otherUserEmail={otherUserEmail} />
        )}
      </Stepper.Step>
      <Stepper.Step label={ONBOARDING_STEPS[TEAM_STEP]} description="Profile and Specialist">
        <Stack>
          {formError && (
            <Alert color="red" role="alert" title="Could not finish the setup">
              {formError}
            </Alert>
          )}
          <TeamStep token={token} view={view} values={values} errors={errors} submitting={complete.isPending} onChange={change} onBack={() => setActive(WORKSPACE_STEP)} onFinish={finish} />
        </Stack>
      </Stepper.Step>
      <Stepper.Step label={ONBOARDING_STEPS[DONE_STEP]} description="Start working">
        <DoneStep legalName={complete.data?.org.legalName ?? values.legalName} signInFailed={signInFailed} />
      </Stepper.Step>
    </Stepper>
  );
}

/**
 * `/onboarding/start?token=<invite_token>` (and the preserved `/accept-invite?token=`): the
 * client's confirmation flow of spec 1 item 1, Workspace Setup, Your Team, Done.
 */
export function OnboardingPage() {
  const [params] = useSearchParams();
  const token = params.get('token')?.trim() ?? '';
  const view = useQuery({
    queryKey: onboardingKeys.view(token),
    queryFn: ({ signal }) => onboardingApi.view(token, signal),
    enabled: token !== '',
    // Completing spends the invite: a refetch afterwards would only report it as used.
    staleTime: Infinity,
    refetchOnWindowFocus: false,
  });

  const problem = token === '' ? undefined : inviteProblemOf(view.error, 'link');
  return (
    <PublicPage
      title="Set up your workspace"
      width={760}
      subtitle={
        view.data && (
          <Text c="dimmed" data-testid="onboarding-org">
            {view.data.org.legalName} · {view.data.org.slug}
          </Text>
        )
      }
    >
      <Paper withBorder p="lg">
        {token === '' ? (
          <InviteProblem />
        ) : view.isPending ? (
          <Centered label="Loading your invite" />
        ) : view.error ? (
          problem ? (
            <InviteProblem problem={problem} />
          ) : (
            <QueryAlert title="Could not load your invite" error={view.error} retry={() => void view.refetch()} />
          )
        ) : (
          <OnboardingFlow token={token} view={view.data} />
        )}
      </Paper>
    </PublicPage>
  );
}
