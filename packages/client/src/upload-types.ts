/** What an upload may carry: a File or Blob, bytes, or text (sent as UTF-8). */
export type UploadBody = Blob | ArrayBuffer | ArrayBufferView | string;

export interface UploadProgress {
  /** Bytes sent so far. */
  loaded: number;
  /** Bytes in all. */
  total: number;
}

export interface UploadRequest {
  url: string;
  headers: Record<string, string>;
  body: UploadBody;
  withCredentials: boolean;
  onProgress?: (progress: UploadProgress) => void;
}

export interface UploadAnswer {
  status: number;
  text: string;
  header(name: string): string | null;
}
