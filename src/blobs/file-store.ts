import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { assertBlobName, BLOB_NAME, type BlobStore, type ByteRange } from './store.js';
import { withBlobDeadline } from './deadline.js';
import { exactLength } from './exact-length.js';

/**
 * Blobs as files under DIR. A blob is written to DIR/.tmp/<random>, flushed to disk, then renamed into
 * place: a reader never sees a partial file, and a crash leaves only a temporary file (removed on start).
 * Opening and removing a blob are bounded by BLOB_TIMEOUT_MS (a hung network file system answers 503
 * instead of holding the request); the bytes of an upload flow at the client's pace, unbounded here.
 */
export class FileBlobStore implements BlobStore {
  readonly kind = 'file' as const;
  private readonly root: string;
  private readonly tmp: string;

  constructor(
    dir: string,
    private readonly timeoutMs = 20_000,
  ) {
    this.root = resolve(dir);
    this.tmp = join(this.root, '.tmp');
  }

  private path(name: string): string {
    assertBlobName(name);
    return join(this.root, name);
  }

  async put(name: string, body: Readable, size: number): Promise<void> {
    const target = this.path(name);
    await mkdir(this.tmp, { recursive: true });
    await mkdir(dirname(target), { recursive: true });
    const temp = join(this.tmp, randomUUID());
    try {
      // flush: the bytes are on disk (fsync) before the rename makes the blob exist.
      await pipeline(body, exactLength(size), createWriteStream(temp, { flags: 'wx', mode: 0o600, flush: true }));
      await rename(temp, target);
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
  }

  async get(name: string, range?: ByteRange): Promise<Readable> {
    const path = this.path(name);
    // A file opened after the deadline is closed at once: nobody reads it.
    const handle = await withBlobDeadline('open the blob', this.timeoutMs, () => open(path, 'r'), (late) => void late.close().catch(() => {}));
    return handle.createReadStream({ start: range?.start, end: range?.end, autoClose: true, highWaterMark: 256 * 1024 });
  }

  async delete(name: string): Promise<void> {
    const path = this.path(name);
    await withBlobDeadline('remove the blob', this.timeoutMs, () => rm(path, { force: true }));
  }

  async sweepTemporary(before: Date): Promise<number> {
    let removed = 0;
    const names = await readdir(this.tmp).catch(() => [] as string[]);
    for (const name of names) {
      const path = join(this.tmp, name);
      const info = await stat(path).catch(() => undefined);
      if (info && info.mtime < before) {
        await rm(path, { force: true });
        removed++;
      }
    }
    return removed;
  }

  async exists(name: string): Promise<boolean> {
    return (await stat(this.path(name)).catch(() => undefined))?.isFile() ?? false;
  }

  async *list(): AsyncIterable<string> {
    for (const app of await readdir(this.root).catch(() => [] as string[])) {
      if (!app.startsWith('app_')) continue;
      for (const blob of await readdir(join(this.root, app)).catch(() => [] as string[])) {
        const name = `${app}/${blob}`;
        if (BLOB_NAME.test(name)) yield name;
      }
    }
  }

  async close(): Promise<void> {}
}
