/**
 * Where the client keeps a Bearer session between page loads or process runs: `localStorage`, React
 * Native's AsyncStorage, a file in Node... Any object with these three methods, sync or async.
 */
export interface StorageAdapter {
  getItem(key: string): string | null | Promise<string | null>;
  setItem(key: string, value: string): void | Promise<void>;
  removeItem(key: string): void | Promise<void>;
}

/** Keeps the session in this page or process only: it is gone on reload. */
export function memoryStorage(): StorageAdapter {
  const items = new Map<string, string>();
  return {
    getItem: (key) => items.get(key) ?? null,
    setItem: (key, value) => void items.set(key, value),
    removeItem: (key) => void items.delete(key),
  };
}
