import { useDebouncedValue } from '@mantine/hooks';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useSearchParams } from 'react-router';

/**
 * A list's filters and tab kept in the address (`?status=active&q=acme`), so a filtered list can
 * be reloaded, shared and reached with Back. Setting a value replaces the history entry; an empty
 * value removes its parameter.
 */
export function useUrlParams<K extends string>(): [get: (key: K) => string | null, set: (changes: Partial<Record<K, string | null>>) => void] {
  const [searchParams, setSearchParams] = useSearchParams();
  const get = useCallback((key: K) => searchParams.get(key), [searchParams]);
  const set = useCallback(
    (changes: Partial<Record<K, string | null>>) =>
      setSearchParams(
        (current) => {
          const next = new URLSearchParams(current);
          for (const [key, value] of Object.entries(changes) as Array<[K, string | null | undefined]>) {
            if (value === null || value === undefined || value === '') next.delete(key);
            else next.set(key, value);
          }
          return next;
        },
        { replace: true },
      ),
    [setSearchParams],
  );
  return [get, set];
}

/**
 * A search box backed by one address parameter: typing is immediate, the address (and so the
 * query) follows after a pause. Returns the text typed and its setter.
 */
export function useUrlSearch(value: string, onSettled: (value: string) => void, delayMs = 300): [string, (value: string) => void] {
  const [typed, setTyped] = useState(value);
  const [settled] = useDebouncedValue(typed.trim(), delayMs);
  const written = useRef(value);
  useEffect(() => {
    if (settled === written.current) return;
    written.current = settled;
    onSettled(settled);
  }, [settled, onSettled]);
  // The address changed from elsewhere (Back, a link): the box follows.
  useEffect(() => {
    if (value === written.current) return;
    written.current = value;
    setTyped(value);
  }, [value]);
  return [typed, setTyped];
}
