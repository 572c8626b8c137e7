import {
  bucketCorsAnswer,
  completeUploadAnswer,
  completeUploadBatchAnswer,
  signPartsAnswer,
  startUploadBatchAnswer,
  uploadSession,
  updateBucketConfigAnswer,
  type BucketCorsAnswer,
  type CompleteUploadBatchAnswer,
  type SignedPart,
  type StartUploadBatchAnswer,
  type StartUploadBatchBody,
  type StartUploadBody,
  type UploadReportBody,
  type UploadSession,
} from '@cumulo/contract';
import { api } from '../../api/client.ts';

/** One PUT of a part (or a whole small file) straight to the store. */
export interface PartRequest {
  url: string;
  headers: Record<string, string>;
  body: Blob;
  signal: AbortSignal;
  /** Bytes of this request sent so far. */
  onProgress(loaded: number): void;
}

/** `status` 0 means the request never got an answer the page may read (network or CORS failure). */
export interface PartResponse {
  status: number;
  etag: string | null;
}

/** Everything the upload engine sends over the network: the Cumulo API and the store itself. */
export interface UploadTransport {
  start(body: StartUploadBody): Promise<UploadSession>;
  sign(sessionId: string, partNumbers: number[]): Promise<SignedPart[]>;
  complete(sessionId: string, parts: Array<{ part_number: number; etag: string | null }>): Promise<void>;
  abort(sessionId: string): Promise<void>;
  /** Sessions and signed PUTs for up to UPLOAD_BATCH_MAX small files, in the order given. */
  startBatch(body: StartUploadBatchBody): Promise<StartUploadBatchAnswer>;
  /** Completes the caller's one-PUT sessions; per file null or why it is not in the bucket. */
  completeBatch(sessionIds: string[]): Promise<CompleteUploadBatchAnswer['files']>;
  /** Durations in the body are milliseconds (the server stores duration_ms). */
  report(body: UploadReportBody): Promise<void>;
  /** Resolves with the answer (status 0 on a network error); rejects with an AbortError once `signal` aborts. */
  put(request: PartRequest): Promise<PartResponse>;
  /** A form POST of one small file (signed form fields, then key, Content-Type and the file); as `put` answers. */
  postForm(request: FormRequest): Promise<PartResponse>;
}

export interface FormRequest {
  url: string;
  fields: Record<string, string>;
  key: string;
  contentType: string;
  body: Blob;
  signal: AbortSignal;
}

/** The signer accepts at most 100 part numbers per call (contract `signPartsQuery`). */
export const SIGN_BATCH_MAX = 100;

function abortError(): DOMException {
  return new DOMException('Upload cancelled', 'AbortError');
}

/** A PUT with XMLHttpRequest: fetch reports no upload progress. */
function putWithXhr(request: PartRequest): Promise<PartResponse> {
  return new Promise((resolve, reject) => {
    if (request.signal.aborted) {
      reject(abortError());
      return;
    }
    const xhr = new XMLHttpRequest();
    const onAbort = () => xhr.abort();
    request.signal.addEventListener('abort', onAbort, { once: true });
    const settle = () => request.signal.removeEventListener('abort', onAbort);
    xhr.open('PUT', request.url);
    for (const [name, value] of Object.entries(request.headers)) xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (event) => request.onProgress(event.loaded);
    xhr.onload = () => {
      settle();
      resolve({ status: xhr.status, etag: xhr.getResponseHeader('ETag') });
    };
    xhr.onerror = () => {
      settle();
      resolve({ status: 0, etag: null });
    };
    xhr.ontimeout = xhr.onerror;
    xhr.onabort = () => {
      settle();
      reject(abortError());
    };
    xhr.send(request.body);
  });
}

/**
 * A form POST with fetch and no upload listener: a plain form POST is a CORS "simple request", so the browser
 * sends no preflight (an XHR with upload listeners would force one).
 */
async function postWithFetch(request: FormRequest): Promise<PartResponse> {
  const form = new FormData();
  for (const [name, value] of Object.entries(request.fields)) form.append(name, value);
  form.append('key', request.key);
  form.append('Content-Type', request.contentType);
  // The store reads the fields before the file: the file goes last.
  form.append('file', request.body);
  try {
    const answer = await fetch(request.url, { method: 'POST', body: form, signal: request.signal });
    return { status: answer.status, etag: answer.headers.get('ETag') };
  } catch (error) {
    if (request.signal.aborted) throw abortError();
    if (error instanceof TypeError) return { status: 0, etag: null };
    throw error;
  }
}

/** The real transport: the API under /api/transfers and XHR PUTs to the store. */
export const httpUploadTransport: UploadTransport = {
  async start(body) {
    return uploadSession.parse(await api.post('/transfers/uploads', body, { silent: true }));
  },
  async sign(sessionId, partNumbers) {
    const answer = signPartsAnswer.parse(
      await api.get('/transfers/url_signer_v4', {
        query: { session_id: sessionId, part_numbers: partNumbers.join(',') },
        silent: true,
      }),
    );
    return answer.parts;
  },
  async complete(sessionId, parts) {
    completeUploadAnswer.parse(
      await api.post(
        `/transfers/uploads/${encodeURIComponent(sessionId)}/complete`,
        { parts },
        { silent: true },
      ),
    );
  },
  async abort(sessionId) {
    await api.delete(`/transfers/uploads/${encodeURIComponent(sessionId)}`, { silent: true });
  },
  async startBatch(body) {
    return startUploadBatchAnswer.parse(await api.post('/transfers/uploads/batch', body, { silent: true }));
  },
  async completeBatch(sessionIds) {
    return completeUploadBatchAnswer.parse(
      await api.post('/transfers/uploads/batch/complete', { session_ids: sessionIds }, { silent: true }),
    ).files;
  },
  async report(body) {
    await api.post('/transfers/report', body, { silent: true });
  },
  put: putWithXhr,
  postForm: postWithFetch,
};

/** PUT /transfers/update_bucket_config/ with cors: lets this origin PUT parts and read their ETag. */
export async function applyBucketCors(cloudAccountId: string, bucketName: string): Promise<void> {
  updateBucketConfigAnswer.parse(
    await api.put(
      '/transfers/update_bucket_config/',
      { cloud_account_id: cloudAccountId, bucket_name: bucketName, cors: true },
      { silent: true },
    ),
  );
}

/** GET /transfers/bucket_config: asked before the first upload to a bucket. */
export async function bucketCors(cloudAccountId: string, bucketName: string): Promise<BucketCorsAnswer> {
  return bucketCorsAnswer.parse(
    await api.get('/transfers/bucket_config', {
      query: { cloud_account_id: cloudAccountId, bucket_name: bucketName },
      silent: true,
    }),
  );
}
