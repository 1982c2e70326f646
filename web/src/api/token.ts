/**
 * The session token lives in localStorage; components subscribe to it with useSyncExternalStore.
 * Only one token is ever kept: while a SuperAdmin impersonates someone, the impersonation token;
 * stopping asks the server for the SuperAdmin's session back (spec 5.8).
 */
const STORAGE_KEY = 'cos.token';
/** Where earlier versions kept a SuperAdmin's own token aside while impersonating: never again. */
const LEGACY_OWN_TOKEN_KEY = 'cos.ownToken';
localStorage.removeItem(LEGACY_OWN_TOKEN_KEY);

/** A token being given back for another (see `handOver`): refusals of it end nothing meanwhile. */
let handingOver: string | null = null;

type Listener = () => void;
const listeners = new Set<Listener>();

function notify(): void {
  for (const listener of listeners) listener();
}

export const tokenStore = {
  get(this: void): string | null {
    return localStorage.getItem(STORAGE_KEY);
  },
  set(token: string): void {
    localStorage.setItem(STORAGE_KEY, token);
    notify();
  },
  clear(): void {
    if (localStorage.getItem(STORAGE_KEY) === null) return;
    localStorage.removeItem(STORAGE_KEY);
    notify();
  },
  /**
   * The current token is about to be replaced by the server's answer (stopping an impersonation
   * ends its session before the SuperAdmin's comes back): until `done`, a 401 of it (a list the
   * closed socket reloads) does not sign the user out. `done` runs after the new token is set.
   */
  handOver(this: void): { done: () => void } {
    const token = localStorage.getItem(STORAGE_KEY);
    handingOver = token;
    return {
      done: () => {
        if (handingOver === token) handingOver = null;
      },
    };
  },
  isHandingOver(this: void, token: string): boolean {
    return handingOver === token;
  },
  subscribe(this: void, listener: Listener): () => void {
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
