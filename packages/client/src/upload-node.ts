// PUT an object from Node: node:http(s), writing the body in chunks and reporting each one once the socket
// has taken it, so progress follows the bytes that actually left (fetch offers no such hook).
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { networkError } from './errors.js';
import type { UploadAnswer, UploadBody, UploadRequest } from './upload-types.js';

const CHUNK = 64 * 1024;

async function* chunks(body: UploadBody): AsyncGenerator<Uint8Array> {
  if (typeof Blob !== 'undefined' && body instanceof Blob) {
    const reader = body.stream().getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      for (let i = 0; i < value.length; i += CHUNK) yield value.subarray(i, i + CHUNK);
    }
  }
  const bytes =
    typeof body === 'string'
      ? new TextEncoder().encode(body)
      : body instanceof ArrayBuffer
        ? new Uint8Array(body)
        : new Uint8Array((body as ArrayBufferView).buffer, (body as ArrayBufferView).byteOffset, (body as ArrayBufferView).byteLength);
  for (let i = 0; i < bytes.length; i += CHUNK) yield bytes.subarray(i, i + CHUNK);
}

function sizeOf(body: UploadBody): number {
  if (typeof body === 'string') return new TextEncoder().encode(body).length;
  if (typeof Blob !== 'undefined' && body instanceof Blob) return body.size;
  return (body as ArrayBuffer | ArrayBufferView).byteLength;
}

export function sendUpload(request: UploadRequest): Promise<UploadAnswer> {
  const total = sizeOf(request.body);
  const url = new URL(request.url);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(url, { method: 'PUT', headers: { ...request.headers, 'content-length': String(total) } }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (part: Buffer) => parts.push(part));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          text: Buffer.concat(parts).toString('utf8'),
          header: (name) => {
            const value = res.headers[name.toLowerCase()];
            return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
          },
        }),
      );
    });
    req.on('error', (error) => reject(networkError(error.message)));
    void (async () => {
      let loaded = 0;
      request.onProgress?.({ loaded, total });
      for await (const chunk of chunks(request.body)) {
        await new Promise<void>((done, fail) => req.write(chunk, (error) => (error ? fail(error) : done())));
        loaded += chunk.length;
        request.onProgress?.({ loaded, total });
      }
      req.end();
    })().catch((error: Error) => {
      req.destroy(error);
    });
  });
}
