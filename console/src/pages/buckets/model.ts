// Buckets and objects as the API answers them (docs/storage.md), their addresses in the console, and the
// address of one object (its key's parts escaped, `/` kept; its owner in the query).
import type { Ok } from '@gatehouse/api-types';

export type Bucket = Ok<'getBucket'>;
export type StoredObject = Ok<'listObjects'>['objects'][number];

export const bucketsHref = (tenantId: string, appId: string) => `/t/${tenantId}/apps/${appId}/buckets`;
export const bucketHref = (tenantId: string, appId: string, bucketId: string) => `${bucketsHref(tenantId, appId)}/${bucketId}`;

/** The API address of an object (GET, PUT, DELETE): owned by its user or organisation, or by the app. */
export function objectPath(bucketId: string, object: Pick<StoredObject, 'key' | 'user_id' | 'organization_id'>): string {
  const key = object.key.split('/').map(encodeURIComponent).join('/');
  const owner = object.user_id ? `?user_id=${object.user_id}` : object.organization_id ? `?organization_id=${object.organization_id}` : '';
  return `/v1/buckets/${bucketId}/objects/${key}${owner}`;
}

/** A size for people: bytes, KiB, MiB, GiB. */
export function bytes(n: number | null): string {
  if (n === null) return 'no limit';
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = n / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) (value /= 1024), unit++;
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** Who owns an object, as the list shows it. */
export const ownerOf = (o: StoredObject) => (o.user_id ? `user ${o.user_id}` : o.organization_id ? `organization ${o.organization_id}` : 'the app');
