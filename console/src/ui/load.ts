import { useCallback, useEffect, useState } from 'preact/hooks';

export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
}

/** Loads `fetcher()` when `keys` change; `reload()` loads it again (after a write). */
export function useLoad<T>(fetcher: () => Promise<T>, keys: unknown[]): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const [loading, setLoading] = useState(true);
  const [version, setVersion] = useState(0);
  useEffect(() => {
    let live = true;
    setLoading(true);
    fetcher().then(
      (value) => live && (setData(value), setError(undefined), setLoading(false)),
      (failure: unknown) => live && (setError(failure), setLoading(false)),
    );
    return () => void (live = false);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...keys, version]);
  const reload = useCallback(() => setVersion((n) => n + 1), []);
  return { data, error, loading, reload };
}

export interface Action {
  busy: boolean;
  error: unknown;
  /** Runs `work`; its failure is kept in `error` (shown by <Problem>), never thrown. */
  run: (work: () => Promise<unknown>) => Promise<boolean>;
  clear: () => void;
}

/** One button's or form's write: busy while it runs, its refusal kept to show. */
export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const run = useCallback(async (work: () => Promise<unknown>) => {
    setBusy(true);
    setError(undefined);
    try {
      await work();
      return true;
    } catch (failure) {
      setError(failure);
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run, clear: () => setError(undefined) };
}
