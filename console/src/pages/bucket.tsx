// /console/t/:tenant/apps/:app/buckets/:bucket: a bucket and its objects in key order, 25 a page (GET
// .../objects; `next_cursor` becomes `?cursor=` in the address): key, size, type, owner, date; download (every
// role: the bytes fetched with the member's token, saved through a blob URL), delete after confirming and
// upload with progress (owners and admins).
import type { Ok } from '@gatehouse/api-types';
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import type { PageProps } from '../routes.js';
import { Link } from '../router.js';
import { canWrite } from '../store.js';
import { AskFirst } from '../ui/confirm.js';
import { download } from '../transfer.js';
import { useAction, useLoad } from '../ui/load.js';
import { Pager } from '../ui/pager.js';
import { LoadStatus, Pending } from '../ui/pending.js';
import { Notice, Problem } from '../ui/problem.js';
import { bucketHref, bucketsHref, bytes, objectPath, ownerOf, type Bucket, type StoredObject } from './buckets/model.js';
import { Upload } from './buckets/upload.js';

const PAGE = 25;

function DeleteObject({ appId, bucketId, object, onDone, onCancel }: { appId: string; bucketId: string; object: StoredObject; onDone: () => void; onCancel: () => void }) {
  const remove = useAction();
  const destroy = () => remove.run(async () => (await api('DELETE', objectPath(bucketId, object), { appId }), onDone()));
  return <AskFirst id="delete-object" title={`Delete ${object.key}?`} text={`Its ${bytes(object.size_bytes)} go with it. This cannot be undone.`} button="Delete the object" action={remove} onConfirm={destroy} onCancel={onCancel} />;
}

export function BucketPage({ params, query, tenant }: PageProps) {
  const appId = params.app!;
  const tenantId = params.tenant!;
  const bucketId = params.bucket!;
  const cursor = query.get('cursor') ?? '';
  const [deleting, setDeleting] = useState<StoredObject | undefined>(undefined);
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const bucket = useLoad(() => api<Bucket>('GET', `/v1/buckets/${bucketId}`, { appId }), [appId, bucketId]);
  const list = useLoad(() => api<Ok<'listObjects'>>('GET', `/v1/buckets/${bucketId}/objects`, { appId, query: { limit: PAGE, cursor: cursor || undefined } }), [appId, bucketId, cursor]);
  const fetching = useAction();
  const writer = canWrite(tenant?.role);
  const changed = (text: string) => {
    setDeleting(undefined);
    setNotice(text);
    list.reload();
    bucket.reload();
  };
  if (bucket.error || !bucket.data) return <Pending load={bucket} text="Loading the bucket…" />;
  const b = bucket.data;
  const base = bucketHref(tenantId, appId, bucketId);
  return (
    <>
      <p>
        <Link href={bucketsHref(tenantId, appId)}>Buckets</Link> · <strong>{b.name}</strong> · {`${b.object_count} ${b.object_count === 1 ? 'object' : 'objects'}, ${bytes(b.used_bytes)} used of ${bytes(b.max_size_bytes)}`}
      </p>
      <section aria-labelledby="objects">
        <h2 id="objects">Objects</h2>
        <LoadStatus load={list} text="Loading objects…" />
        {list.data && (
          <>
            <div class="table-wrap">
              <table>
                <caption>{`Objects: ${list.data.objects.length} on this page${cursor ? ' (a later page)' : ''}`}</caption>
                <thead>
                  <tr>
                    <th scope="col">Key</th>
                    <th scope="col">Size</th>
                    <th scope="col">Type</th>
                    <th scope="col">Owner</th>
                    <th scope="col">Updated</th>
                    <th scope="col">Actions</th>
                  </tr>
                </thead>
                <tbody>
                  {list.data.objects.map((o) => (
                    <tr key={objectPath(bucketId, o)}>
                      <td>{o.key}</td>
                      <td>{bytes(o.size_bytes)}</td>
                      <td>{o.content_type}</td>
                      <td>{ownerOf(o)}</td>
                      <td>
                        <time dateTime={o.updated_at}>{o.updated_at.slice(0, 19).replace('T', ' ')}</time>
                      </td>
                      <td class="row-actions">
                        <button type="button" class="secondary" aria-label={`Download ${o.key}`} disabled={fetching.busy} onClick={() => fetching.run(() => download(objectPath(bucketId, o), appId, o.key.split('/').pop()!))}>
                          Download
                        </button>
                        {writer && (
                          <button type="button" class="secondary" aria-label={`Delete ${o.key}`} onClick={() => setDeleting(o)}>
                            Delete
                          </button>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            {list.data.objects.length === 0 && <p>No objects on this page.</p>}
            <Pager base={base} cursor={cursor} next={list.data.next_cursor} />
          </>
        )}
        <Problem error={fetching.error} />
        <Notice text={notice} />
        {writer && deleting && <DeleteObject appId={appId} bucketId={bucketId} object={deleting} onDone={() => changed(`Deleted ${deleting.key}.`)} onCancel={() => setDeleting(undefined)} />}
      </section>
      {writer && <Upload appId={appId} bucketId={bucketId} onUploaded={() => (list.reload(), bucket.reload())} />}
    </>
  );
}
