import type { CheckpointEvents } from './sqlite-checkpoints.js';
import type { RetryPolicy } from './transaction.js';

// What bounds the store's waits, read by db.ts and by pg-pool.ts (which db.ts imports): its own module, so no cycle.
export interface StoreTimeouts {
  /** The longest one query may run: statement_timeout on the server and a read timeout on the client; 0 for none. */
  queryTimeoutMs: number;
  /** The longest a request waits for a pooled connection (or a new one to open). */
  poolTimeoutMs: number;
  /** SQLite's page cache in MB (SQLITE_CACHE_MB); 32 unless given. */
  sqliteCacheMb?: number;
  /** SQLite: the write-ahead log's cap in MB (SQLITE_WAL_LIMIT_MB); 64 unless given. */
  sqliteWalLimitMb?: number;
  /**
   * SQLite: checkpoint the write-ahead log from a worker thread, not on commit (store/sqlite-checkpoints.ts).
   * For the server; a CLI command's short life checkpoints on close.
   */
  backgroundCheckpoints?: CheckpointEvents;
  /** Re-runs of a transaction PostgreSQL ended for contention, and who counts them (store/transaction.ts); 3 and no one unless given. */
  transactionRetries?: RetryPolicy;
}
