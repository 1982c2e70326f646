import type { MeResponse } from '@contracts';
import { createContext, useContext } from 'react';

export const CurrentUserContext = createContext<MeResponse | null>(null);

/** The signed-in user of a page behind RequireRole. */
export function useCurrentUser(): MeResponse {
  const user = useContext(CurrentUserContext);
  if (!user) throw new Error('useCurrentUser is only available inside RequireRole');
  return user;
}
