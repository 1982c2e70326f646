import { Navigate, useLocation, useParams, type RouteObject } from 'react-router';

/** Sends `<from>/<rest>` to `<to>/<rest>`, keeping the query string and hash. */
function RedirectPrefix({ to }: { to: string }) {
  const rest = useParams()['*'] ?? '';
  const { search, hash } = useLocation();
  return <Navigate to={`${to}${rest ? `/${rest}` : ''}${search}${hash}`} replace />;
}

/** The renamed frontend routes of spec 9.5. */
export const legacyRedirects: RouteObject[] = [
  { path: '/portal/admin/*', element: <RedirectPrefix to="/client/settings" /> },
  { path: '/client/admin/*', element: <RedirectPrefix to="/client/settings" /> },
  { path: '/am/*', element: <RedirectPrefix to="/ops" /> },
  { path: '/superadmin/*', element: <RedirectPrefix to="/ops" /> },
];
