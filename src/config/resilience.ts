import { ConfigError, integer, type Env } from './env.js';

// Timeouts, bounds and shutdown (docs/operations.md, "Timeouts" and "Shutdown").

export function parseResilience(env: Env) {
  const shutdownGraceSeconds = integer(env, 'SHUTDOWN_GRACE_SECONDS', 25, 1, 3_600);
  const shutdownDrainSeconds = integer(env, 'SHUTDOWN_DRAIN_SECONDS', 0, 0, 3_600);
  if (shutdownDrainSeconds >= shutdownGraceSeconds) {
    throw new ConfigError('SHUTDOWN_DRAIN_SECONDS', `must be less than SHUTDOWN_GRACE_SECONDS (${shutdownGraceSeconds})`);
  }
  return {
    dbQueryTimeoutMs: integer(env, 'DB_QUERY_TIMEOUT_MS', 5_000, 100, 600_000),
    dbPoolTimeoutMs: integer(env, 'DB_POOL_TIMEOUT_MS', 5_000, 100, 600_000),
    dbTransactionRetries: integer(env, 'DB_TRANSACTION_RETRIES', 3, 0, 10),
    sqliteCacheMb: integer(env, 'SQLITE_CACHE_MB', 32, 1, 4_096),
    sqliteWalLimitMb: integer(env, 'SQLITE_WAL_LIMIT_MB', 64, 4, 65_536),
    mailSendTimeoutMs: integer(env, 'MAIL_SEND_TIMEOUT_MS', 30_000, 500, 600_000),
    mailGiveUpSeconds: integer(env, 'MAIL_GIVE_UP_SECONDS', 3_600, 1, 7 * 86_400),
    blobTimeoutMs: integer(env, 'BLOB_TIMEOUT_MS', 20_000, 100, 600_000),
    uploadStaleSeconds: integer(env, 'UPLOAD_STALE_SECONDS', 120, 3, 3_600),
    nodeHeartbeatSeconds: integer(env, 'NODE_HEARTBEAT_SECONDS', 10, 1, 600),
    blobDeletionGraceSeconds: integer(env, 'BLOB_DELETION_GRACE_SECONDS', 3_600, 0, 30 * 86_400),
    shutdownGraceSeconds,
    shutdownDrainSeconds,
  };
}
