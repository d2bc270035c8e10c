import { ConfigError, read, type Env } from './env.js';

// DATABASE_URL and BLOB_STORE: where the rows and the object bytes live.

export type DatabaseConfig = { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string };
export type BlobStoreConfig =
  | { kind: 'file'; dir: string }
  | { kind: 's3'; bucket: string; endpoint?: string; region?: string; forcePathStyle: boolean };

export function parseDatabase(env: Env): DatabaseConfig {
  const raw = read(env, 'DATABASE_URL') ?? 'sqlite:./data/gatehouse.db';
  if (raw.startsWith('sqlite:')) {
    const path = raw.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (!path) throw new ConfigError('DATABASE_URL', 'sqlite: needs a file path, e.g. sqlite:./data/gatehouse.db');
    return { kind: 'sqlite', path };
  }
  if (raw.startsWith('postgres://') || raw.startsWith('postgresql://')) {
    try {
      new URL(raw);
    } catch {
      throw new ConfigError('DATABASE_URL', 'is not a valid postgres:// URL');
    }
    return { kind: 'postgres', url: raw };
  }
  throw new ConfigError('DATABASE_URL', 'must start with sqlite: or postgres://');
}

export function parseBlobStore(env: Env): BlobStoreConfig {
  const raw = read(env, 'BLOB_STORE') ?? 'file:./data/blobs';
  if (raw.startsWith('file:')) {
    const dir = raw.slice('file:'.length);
    if (!dir) throw new ConfigError('BLOB_STORE', 'file: needs a directory');
    return { kind: 'file', dir };
  }
  if (raw.startsWith('s3://')) {
    let parsed: URL;
    try {
      parsed = new URL(raw);
    } catch {
      throw new ConfigError('BLOB_STORE', 'is not a valid s3://BUCKET?endpoint=URL&region=R address');
    }
    if (!parsed.hostname) throw new ConfigError('BLOB_STORE', 's3:// needs a bucket name');
    const endpoint = parsed.searchParams.get('endpoint') ?? undefined;
    if (endpoint !== undefined) {
      try {
        new URL(endpoint);
      } catch {
        throw new ConfigError('BLOB_STORE', 'endpoint is not a valid URL');
      }
    }
    const pathStyle = parsed.searchParams.get('force_path_style');
    if (pathStyle !== null && !['true', 'false'].includes(pathStyle)) throw new ConfigError('BLOB_STORE', 'force_path_style must be true or false');
    return {
      kind: 's3',
      bucket: parsed.hostname,
      endpoint,
      region: parsed.searchParams.get('region') ?? undefined,
      forcePathStyle: pathStyle === 'true',
    };
  }
  throw new ConfigError('BLOB_STORE', 'must start with file: or s3://');
}
