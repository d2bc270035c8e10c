// Bytes to and from the object routes, which api() (JSON only) cannot carry: an upload by XMLHttpRequest
// (its upload progress events drive a <progress>) and a download by fetch into a Blob. Both send what api()
// sends: the console access token as Bearer and X-App-Id, never a secret key; a refusal throws ApiFailure.
import { ApiFailure, token } from './api.js';

function failure(status: number, text: string, requestId: string | null): ApiFailure {
  let body: { detail?: unknown; code?: unknown } | undefined;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  const detail = typeof body?.detail === 'string' ? body.detail : `the server answered ${status}`;
  return new ApiFailure(status, typeof body?.code === 'string' ? body.code : 'unknown', detail, requestId ?? undefined);
}

/** PUTs `file` to `path` with its type; `onProgress(percent)` as its bytes leave. Answers the JSON body. */
export async function upload<T = unknown>(path: string, file: Blob, appId: string, onProgress: (percent: number) => void): Promise<T> {
  const bearer = await token();
  return new Promise<T>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('PUT', path);
    xhr.setRequestHeader('authorization', `Bearer ${bearer}`);
    xhr.setRequestHeader('x-app-id', appId);
    xhr.setRequestHeader('accept', 'application/json');
    xhr.setRequestHeader('content-type', file.type || 'application/octet-stream');
    xhr.upload.addEventListener('progress', (event) => event.lengthComputable && onProgress(Math.floor((event.loaded / event.total) * 100)));
    xhr.addEventListener('load', () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        try {
          resolve(JSON.parse(xhr.responseText) as T);
        } catch {
          reject(failure(xhr.status, '', xhr.getResponseHeader('x-request-id')));
        }
      } else reject(failure(xhr.status, xhr.responseText, xhr.getResponseHeader('x-request-id')));
    });
    xhr.addEventListener('error', () => reject(new ApiFailure(0, 'network_error', 'Gatehouse did not answer: check your connection and try again')));
    xhr.send(file);
  });
}

/** GETs `path`'s bytes and saves them as `name` (saveAs). */
export async function download(path: string, appId: string, name: string): Promise<void> {
  const answer = await fetch(path, { headers: { authorization: `Bearer ${await token()}`, 'x-app-id': appId }, credentials: 'omit', cache: 'no-store' }).catch(() => {
    throw new ApiFailure(0, 'network_error', 'Gatehouse did not answer: check your connection and try again');
  });
  if (!answer.ok) throw failure(answer.status, await answer.text(), answer.headers.get('x-request-id'));
  saveAs(await answer.blob(), name);
}

/** Saves `blob` as the file `name`: a blob URL on a hidden <a download>, clicked, then revoked. */
export function saveAs(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
