/** The session token lives in localStorage; components subscribe to it with useSyncExternalStore. */
const STORAGE_KEY = 'cos.token';
/** While a SuperAdmin impersonates someone: their own token, kept aside (spec 5.8). */
const OWN_TOKEN_KEY = 'cos.ownToken';

type Listener = () => void;
const listeners = new Set<Listener>();

function notify(): void {
  for (const listener of listeners) listener();
}

export const tokenStore = {
  get(): string | null {
    return localStorage.getItem(STORAGE_KEY);
  },
  set(token: string): void {
    localStorage.setItem(STORAGE_KEY, token);
    notify();
  },
  clear(): void {
    // Signing out (or a refused token) also forgets a SuperAdmin token kept aside.
    localStorage.removeItem(OWN_TOKEN_KEY);
    if (localStorage.getItem(STORAGE_KEY) === null) return;
    localStorage.removeItem(STORAGE_KEY);
    notify();
  },
  keepOwn(token: string): void {
    localStorage.setItem(OWN_TOKEN_KEY, token);
  },
  /** The token kept aside, removed from storage. */
  takeOwn(): string | null {
    const token = localStorage.getItem(OWN_TOKEN_KEY);
    localStorage.removeItem(OWN_TOKEN_KEY);
    return token;
  },
  subscribe(listener: Listener): () => void {
    listeners.add(listener);
    // Another tab signing in or out changes the session here too.
    const onStorage = (event: StorageEvent): void => {
      if (event.key === STORAGE_KEY) listener();
    };
    window.addEventListener('storage', onStorage);
    return () => {
      listeners.delete(listener);
      window.removeEventListener('storage', onStorage);
    };
  },
};
