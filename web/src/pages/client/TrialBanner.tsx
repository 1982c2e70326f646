import { Alert } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useCurrentUser } from '../../auth/current-user';
import { clientApi, clientKeys, type TrialInfo } from '../../client/client.api';
import { formatDate } from '../../ops/format';

function daysText(days: number): string {
  if (days === 0) return 'it ends today';
  return `${days} ${days === 1 ? 'day' : 'days'} left`;
}

function bannerText(info: TrialInfo): string {
  const end = formatDate(info.trialEndDate);
  const days = info.daysLeft === null ? '' : ` (${daysText(info.daysLeft)})`;
  return info.ending ? `Your trial ends on ${end}${days}. Contact your account manager to keep your Specialists working.` : `You are on a free trial until ${end}${days}.`;
}

/** The trial banner of the client portal (`GET /client/trial-info`); nothing outside a trial. */
export function TrialBanner() {
  const user = useCurrentUser();
  // The first membership's org: a client of several orgs sees the banner of that one.
  const orgId = user.orgMemberships[0]?.orgId;
  const info = useQuery({
    queryKey: clientKeys.trialInfo(orgId),
    queryFn: ({ signal }) => clientApi.trialInfo(orgId, signal),
    enabled: orgId !== undefined,
    staleTime: 5 * 60_000,
  });
  if (!info.data?.showBanner) return null;
  return (
    <Alert
      color={info.data.ending ? 'orange' : 'blue'}
      title={info.data.ending ? 'Your trial is ending' : 'Free trial'}
      data-testid="trial-banner"
      data-ending={info.data.ending}
      data-days-left={info.data.daysLeft ?? ''}
    >
      {bannerText(info.data)}
    </Alert>
  );
}
