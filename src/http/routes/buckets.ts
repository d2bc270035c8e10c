import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import { createBucket, deleteBucket, getBucket, listBuckets, objectStorageUsage, updateBucketCaps, type Bucket } from '../../services/objects/buckets.js';
import type { Guards } from '../plugins/guards.js';
import { deleted, errors, ListOf, StatusBody, Timestamps, Uuid, withTimestamps } from '../schemas.js';
import type { Http } from '../types.js';
import { routesOf } from '../route-security.js';

// docs/storage.md: buckets. Create, patch, delete: Secret. Reads: Secret or
// Publishable + Session.

// Null first, so the union reads as "no cap, or a number of bytes" (bodies are validated without coercion).
const Cap = Type.Union([Type.Null(), Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })], { description: 'bytes; null: no cap' });

export const BucketBody = Type.Object({
  bucket_id: Uuid,
  name: Type.String(),
  max_size_bytes: Type.Union([Type.Integer(), Type.Null()]),
  max_size_bytes_per_user: Type.Union([Type.Integer(), Type.Null()]),
  max_size_bytes_per_org: Type.Union([Type.Integer(), Type.Null()], { description: "bytes one organisation's objects may hold in the bucket" }),
  used_bytes: Type.Integer({ description: 'committed objects plus uploads in flight' }),
  object_count: Type.Integer(),
  ...Timestamps,
}, { title: 'Bucket' });

const bucketBody = (b: Bucket) =>
  withTimestamps(b, {
    bucket_id: b.id,
    name: b.name,
    max_size_bytes: b.maxSizeBytes,
    max_size_bytes_per_user: b.maxSizeBytesPerUser,
    max_size_bytes_per_org: b.maxSizeBytesPerOrg,
    used_bytes: b.usedBytes,
    object_count: b.objectCount,
  });

const CreateBody = Type.Object({ name: Type.String({ pattern: '^[a-z0-9._-]{1,63}$', description: '1-63 of a-z 0-9 . _ -' }) });
const PatchBody = Type.Object({ max_size_bytes: Type.Optional(Cap), max_size_bytes_per_user: Type.Optional(Cap), max_size_bytes_per_org: Type.Optional(Cap) });
const Params = Type.Object({ bucket_id: Uuid });

const StorageBody = Type.Object({
  used_bytes: Type.Integer(),
  limit_bytes: Type.Integer(),
  used_percent: Type.Number({ minimum: 0, maximum: 100 }),
  buckets: Type.Array(Type.Object({ bucket_id: Uuid, name: Type.String(), used_bytes: Type.Integer(), object_count: Type.Integer() })),
});

export function bucketRoutes(app: Http, deps: Deps, guards: Guards): void {
  const route = routesOf(guards, 'object storage');

  app.post(
    '/v1/buckets',
    route.secret({ operationId: 'createBucket', summary: 'Create a bucket', body: CreateBody, response: { 201: BucketBody, ...errors(400, 401, 403, 409) } }),
    async (request, reply) => reply.code(201).send(bucketBody(await createBucket(deps, request.application!.id, request.body.name))),
  );

  app.get(
    '/v1/buckets',
    route.secretOrSession({ operationId: 'listBuckets', summary: "The app's buckets", response: { 200: ListOf('buckets', BucketBody), ...errors(401, 403) } }),
    async (request) => ({ buckets: (await listBuckets(deps, request.application!.id)).map(bucketBody) }),
  );

  // Declared before /v1/buckets/:bucket_id; a static segment wins over a parameter anyway.
  app.get(
    '/v1/buckets/storage',
    route.secretOrSession({ operationId: 'getBucketStorage', summary: "The app's object storage: used, limit, per bucket", response: { 200: StorageBody, ...errors(401, 403) } }),
    async (request) => objectStorageUsage(deps, request.application!.id),
  );

  app.get(
    '/v1/buckets/:bucket_id',
    route.secretOrSession({ operationId: 'getBucket', summary: 'One bucket', params: Params, response: { 200: BucketBody, ...errors(400, 401, 403, 404) } }),
    async (request) => bucketBody(await getBucket(deps, request.application!.id, request.params.bucket_id)),
  );

  app.patch(
    '/v1/buckets/:bucket_id',
    route.secret({
      operationId: 'updateBucket',
      summary: 'Set or remove the caps (either field alone; null removes it)',
      params: Params,
      body: PatchBody,
      response: { 200: BucketBody, ...errors(400, 401, 403, 404) },
    }),
    async (request) => bucketBody(await updateBucketCaps(deps, request.application!.id, request.params.bucket_id, request.body)),
  );

  app.delete(
    '/v1/buckets/:bucket_id',
    route.secret({
      operationId: 'deleteBucket',
      summary: 'Delete a bucket with its objects and their bytes',
      params: Params,
      response: { 200: StatusBody('deleted'), ...errors(400, 401, 403, 404) },
    }),
    async (request) => deleted(deleteBucket(deps, request.application!.id, request.params.bucket_id)),
  );
}
