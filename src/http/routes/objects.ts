import { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.js';
import { ApiError, badRequest, forbidden, notFound } from '../../errors.js';
import { deleteObject, headObject, listObjects, openObject, organizationOwner, ownerIds, putObject, type ObjectAddress, type ObjectGate, type StoredObject } from '../../services/objects/objects.js';
import { getUser } from '../../services/accounts/users.js';
import { drainBody } from '../objects/drain-body.js';
import { CONTENT_SECURITY_POLICY, contentDisposition, etagMatches, isMediaType, parseRange } from '../objects/serve-headers.js';
import type { Guards } from '../plugins/guards.js';
import { deleted, errors, PageOf, StatusBody, Timestamps, Uuid, withTimestamps } from '../schemas.js';
import type { Http } from '../types.js';
import { routesOf } from '../route-security.js';

// docs/storage.md: objects. Secret (any user_id) or Publishable + Session
// (own objects only: another user_id is 403; an organisation's with ?organization_id=, docs/organizations.md).
// Bodies stream between the socket and the blob store.

declare module 'fastify' {
  interface FastifyRequest {
    /** The Content-Type an upload was sent with (the framework sees octet-stream). */
    uploadContentType?: string;
  }
}

export const ObjectBody = Type.Object({
  key: Type.String(),
  size_bytes: Type.Integer(),
  content_type: Type.String(),
  user_id: Type.Union([Uuid, Type.Null()]),
  organization_id: Type.Union([Uuid, Type.Null()], { description: 'the organisation that owns the object (user_id is then null)' }),
  etag: Type.String({ description: 'as in the ETag header, quoted' }),
  ...Timestamps,
}, { title: 'BucketObject' });

const objectBody = (o: StoredObject) => withTimestamps(o, { key: o.key, size_bytes: o.sizeBytes, content_type: o.contentType, ...ownerIds(o.owner), etag: o.etag });

const ObjectParams = Type.Object({ bucket_id: Uuid, '*': Type.String({ description: 'the key: 1-1024 bytes, may hold /' }) });
const OrgQuery = Type.Optional(Uuid);
const OwnerQuery = Type.Object({ user_id: Type.Optional(Uuid), organization_id: OrgQuery });
const ListQuery = Type.Object({
  user_id: Type.Optional(Uuid),
  organization_id: OrgQuery,
  prefix: Type.Optional(Type.String({ maxLength: 1024 })),
  limit: Type.Integer({ minimum: 1, maximum: 1000, default: 100 }),
  cursor: Type.Optional(Type.String({ maxLength: 4096 })),
});

/** Keys are 1-1024 bytes of UTF-8 without control characters (NUL cannot be stored, and none belongs in a name). */
function checkKey(key: string): string {
  const bytes = Buffer.byteLength(key, 'utf8');
  if (bytes < 1 || bytes > 1024) throw badRequest('key must be 1-1024 bytes');
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(key) || key.includes('\ufffd')) throw badRequest('key must be valid UTF-8 without control characters');
  return key;
}

export function objectRoutes(app: Http, deps: Deps, guards: Guards): void {
  const route = routesOf(guards, 'object storage');

  /**
   * The owner the request acts as: a session is its own user (another user_id → 403); the secret key acts
   * for the user_id it names (a user of this app, else 404) or for no user. With `organization_id`, the
   * organisation, behind the gate its statements check (docs/organizations.md): through a session, only its
   * active organisation (another → 404) while its user is a member; through the secret key, while it is live.
   */
  async function ownerOf(request: FastifyRequest, query: { user_id?: string; organization_id?: string }): Promise<{ owner: string; gate?: ObjectGate }> {
    const { user_id: userId, organization_id: orgId } = query;
    if (orgId !== undefined) {
      if (userId !== undefined) throw badRequest('an object belongs to a user or to an organization, not both');
      if (!request.application!.organizationsEnabled) throw notFound('organization not found');
      if (!request.session) return organizationOwner(orgId);
      if (request.session.orgId !== orgId) throw notFound('organization not found');
      return organizationOwner(orgId, { userId: request.session.userId, sessionId: request.session.sessionId });
    }
    if (request.session) {
      if (userId !== undefined && userId !== request.session.userId) throw forbidden("a session reaches only its own user's objects");
      return { owner: request.session.userId };
    }
    if (userId === undefined) return { owner: '' };
    await getUser(deps, request.application!.id, userId);
    return { owner: userId };
  }

  async function addressOf(request: FastifyRequest): Promise<ObjectAddress> {
    const params = request.params as { bucket_id: string; '*': string };
    const key = checkKey(params['*']);
    return { appId: request.application!.id, bucketId: params.bucket_id, key, ...(await ownerOf(request, request.query as { user_id?: string; organization_id?: string })) };
  }

  // The upload route gets its own context: its body is never parsed or buffered, whatever its type; the
  // handler streams request.raw to the blob store.
  app.register(async (uploads: Http) => {
    // The stored Content-Type is the client's, checked by the handler after authentication; the framework
    // only ever sees octet-stream, so no type (JSON, forms, malformed ones) is parsed or refused early.
    uploads.addHook('onRequest', async (request) => {
      request.uploadContentType = request.headers['content-type'];
      if (request.headers['content-type'] !== undefined) request.headers['content-type'] = 'application/octet-stream';
    });
    uploads.removeAllContentTypeParsers();
    uploads.addContentTypeParser('*', (_request, _payload, done) => done(null));
    // A refused upload whose body is still arriving: read a bounded part of the rest, so the client (still
    // sending) can read the answer, then close the connection rather than read on (objects/drain-body.ts).
    uploads.addHook('onSend', async (request, reply) => {
      if (reply.statusCode >= 400 && !request.raw.complete) {
        reply.header('connection', 'close');
        await drainBody(request.raw);
      }
    });
    uploads.put(
      '/v1/buckets/:bucket_id/objects/*',
      route.secretOrSession({
        operationId: 'putObject',
        summary: 'Store an object: the body is its bytes, Content-Type its type, Content-Length required',
        params: ObjectParams,
        querystring: OwnerQuery,
        response: { 200: ObjectBody, ...errors(400, 401, 403, 404, 411, 413, 503) },
      }),
      async (request) => {
        const length = request.headers['content-length'];
        if (length === undefined && request.headers['transfer-encoding'] !== undefined) {
          throw new ApiError(411, 'length_required', 'send Content-Length: uploads are checked against the caps before they are read');
        }
        const size = length === undefined ? 0 : Number(length);
        const header = request.uploadContentType;
        const contentType = header === undefined || header === '' ? 'application/octet-stream' : header;
        if (!isMediaType(contentType)) throw badRequest('Content-Type must be a media type such as image/png');
        const object = await putObject(deps, await addressOf(request), { contentType, size, body: request.raw });
        return objectBody(object);
      },
    );
  });

  app.get(
    '/v1/buckets/:bucket_id/objects/*',
    route.secretOrSession({
      operationId: 'getObject',
      summary: 'The bytes, with ETag, Last-Modified, If-None-Match (304) and one Range (206)',
      params: ObjectParams,
      querystring: OwnerQuery,
      response: {
        200: Type.String({ description: 'the object bytes with the stored Content-Type' }),
        206: Type.String({ description: 'the requested range, with Content-Range' }),
        304: Type.Null({ description: 'If-None-Match named the current ETag' }),
        ...errors(400, 401, 403, 404, 416, 503),
      },
    }),
    async (request, reply) => {
      const address = await addressOf(request);
      const object = await headObject(deps, address);
      reply.headers({
        etag: object.etag,
        'last-modified': new Date(object.updatedAt).toUTCString(),
        'accept-ranges': 'bytes',
        'cache-control': 'private, no-cache',
        'x-content-type-options': 'nosniff',
        'content-security-policy': CONTENT_SECURITY_POLICY,
        'content-disposition': contentDisposition(object.contentType, object.key),
      });
      if (etagMatches(request.headers['if-none-match'], object.etag)) return reply.code(304).send(null);
      const range = parseRange(request.headers.range, object.sizeBytes);
      if (range.kind === 'unsatisfiable') {
        throw new ApiError(416, 'range_not_satisfiable', `the object has ${object.sizeBytes} bytes`, {
          headers: { 'content-range': `bytes */${object.sizeBytes}` },
        });
      }
      const part = range.kind === 'partial' ? range.range : undefined;
      if (part) reply.code(206).header('content-range', `bytes ${part.start}-${part.end}/${object.sizeBytes}`);
      reply.header('content-length', part ? part.end - part.start + 1 : object.sizeBytes).type(object.contentType);
      // HEAD (Fastify's automatic route) answers the headers without opening the blob.
      if (request.method === 'HEAD') return reply.send(Readable.from([]) as unknown as string);
      const stream = await openObject(deps, address.appId, object, part);
      return reply.send(stream as unknown as string); // streamed: Fastify never serializes a stream
    },
  );

  app.delete(
    '/v1/buckets/:bucket_id/objects/*',
    route.secretOrSession({ operationId: 'deleteObject', summary: 'Delete an object and its bytes', params: ObjectParams, querystring: OwnerQuery, response: { 200: StatusBody('deleted'), ...errors(400, 401, 403, 404) } }),
    async (request) => deleted(deleteObject(deps, await addressOf(request))),
  );

  app.get(
    '/v1/buckets/:bucket_id/objects',
    route.secretOrSession({
      operationId: 'listObjects',
      summary: 'A page of objects in key order (a session sees its own only)',
      params: Type.Object({ bucket_id: Uuid }),
      querystring: ListQuery,
      response: { 200: PageOf('objects', ObjectBody), ...errors(400, 401, 403, 404) },
    }),
    async (request) => {
      const { user_id, organization_id, prefix, limit, cursor } = request.query;
      const scope = request.session || user_id !== undefined || organization_id !== undefined ? await ownerOf(request, { user_id, organization_id }) : undefined;
      const page = await listObjects(deps, request.application!.id, request.params.bucket_id, { owner: scope?.owner, gate: scope?.gate, prefix, limit, cursor });
      return { objects: page.objects.map(objectBody), next_cursor: page.nextCursor };
    },
  );
}
