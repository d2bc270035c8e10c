// PUT an object from a browser: XMLHttpRequest, the one browser API that reports upload progress.
import { networkError } from './errors.js';
import type { UploadAnswer, UploadRequest } from './upload-types.js';

export function sendUpload(request: UploadRequest): Promise<UploadAnswer> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('PUT', request.url);
    xhr.withCredentials = request.withCredentials;
    for (const [name, value] of Object.entries(request.headers)) xhr.setRequestHeader(name, value);
    const onProgress = request.onProgress;
    if (onProgress) xhr.upload.onprogress = (event) => onProgress({ loaded: event.loaded, total: event.lengthComputable ? event.total : event.loaded });
    xhr.onload = () => resolve({ status: xhr.status, text: xhr.responseText, header: (name) => xhr.getResponseHeader(name) });
    xhr.onerror = () => reject(networkError('the upload failed', new URL(request.url).origin));
    xhr.send(request.body as XMLHttpRequestBodyInit);
  });
}
