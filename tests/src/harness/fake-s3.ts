import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';

/** One request that reached the fake: method, bucket, key (empty for the bucket itself). */
export type S3Call = { method: string; bucket: string; key: string };

type StoredObject = { body: Buffer; contentType: string; etag: string; modified: Date };

const ACCESS_KEY_ID = 'fake-access-key';
const SECRET_ACCESS_KEY = 'fake-secret-key';

const xmlError = (code: string, message: string) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message><RequestId>fake</RequestId></Error>`;

const sha256Hex = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();
/** RFC 3986 encoding, as SigV4 canonicalizes query parameters. */
const uriEncode = (value: string) =>
  encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/**
 * Whether the request carries a valid AWS Signature Version 4 by the fake's key (S3's rules: the
 * path as sent, not normalized; the payload hash as the x-amz-content-sha256 header states it,
 * checked against the body unless UNSIGNED-PAYLOAD).
 */
function signatureProblem(request: http.IncomingMessage, body: Buffer): string | null {
  const match =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/s3\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(
      request.headers.authorization ?? '',
    );
  if (!match) return 'missing or malformed AWS4-HMAC-SHA256 authorization';
  const [, accessKey, date = '', region = '', signedHeaders = '', signature = ''] = match;
  if (accessKey !== ACCESS_KEY_ID) return 'unknown access key';
  const payloadHash = String(request.headers['x-amz-content-sha256'] ?? '');
  if (payloadHash !== 'UNSIGNED-PAYLOAD' && payloadHash !== sha256Hex(body)) return 'payload hash mismatch';
  const [path = '/', query = ''] = (request.url ?? '/').split('?');
  const canonicalQuery = [...new URLSearchParams(query)]
    .map(([k, v]) => `${uriEncode(k)}=${uriEncode(v)}`)
    .sort()
    .join('&');
  const canonicalHeaders = signedHeaders
    .split(';')
    .map(
      (name) =>
        `${name}:${String(request.headers[name] ?? '')
          .trim()
          .replace(/\s+/g, ' ')}\n`,
    )
    .join('');
  const canonical = [request.method, path, canonicalQuery, canonicalHeaders, signedHeaders, payloadHash].join(
    '\n',
  );
  const amzDate = String(request.headers['x-amz-date'] ?? '');
  const scope = `${date}/${region}/s3/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256Hex(canonical)].join('\n');
  const key = ['s3', 'aws4_request'].reduce(hmac, hmac(hmac(`AWS4${SECRET_ACCESS_KEY}`, date), region));
  const expected = createHmac('sha256', key).update(toSign).digest();
  return timingSafeEqual(expected, Buffer.from(signature, 'hex')) ? null : 'signature does not match';
}

/**
 * The S3 API faked at the HTTP boundary, path-style (`/bucket/key`), for the real AWS SDK client:
 * PutObject, GetObject, HeadObject, DeleteObject and HeadBucket on buckets made with it, objects
 * kept in memory. Requests must carry a valid Signature Version 4 by the fake's key pair; a body
 * must match its Content-Length. Multipart uploads and aws-chunked bodies are refused (501), so a
 * client that starts sending them fails loudly. `failWith(500)` makes every request fail until
 * `failWith(null)`; `cutBodiesAfter(n)` drops downloads after n bytes.
 */
export async function startFakeS3(buckets: string[] = ['beckon-test']) {
  const objects = new Map<string, StoredObject>();
  const calls: S3Call[] = [];
  let failure: number | null = null;
  let cutAfter: number | null = null;

  const send = (response: http.ServerResponse, status: number, code: string, message: string) => {
    response.writeHead(status, { 'content-type': 'application/xml' });
    response.end(xmlError(code, message));
  };

  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://fake');
    const [bucket = '', ...rest] = url.pathname.slice(1).split('/');
    const key = rest.map(decodeURIComponent).join('/');
    const method = request.method ?? 'GET';
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      calls.push({ method, bucket, key });
      if (failure !== null)
        return send(response, failure, 'InternalError', 'We encountered an internal error.');
      const body = Buffer.concat(chunks);
      const problem = signatureProblem(request, body);
      if (problem) return send(response, 403, 'SignatureDoesNotMatch', problem);
      if (url.searchParams.has('uploads') || url.searchParams.has('uploadId')) {
        return send(response, 501, 'NotImplemented', 'multipart uploads are not faked');
      }
      if (!buckets.includes(bucket)) return send(response, 404, 'NoSuchBucket', 'The bucket does not exist.');
      const id = `${bucket}/${key}`;
      const object = objects.get(id);

      if (method === 'HEAD' && !key) return response.writeHead(200).end();
      if (method === 'PUT' && key) {
        if (/aws-chunked/.test(request.headers['content-encoding'] ?? '')) {
          return send(response, 501, 'NotImplemented', 'aws-chunked bodies are not faked');
        }
        if (Number(request.headers['content-length']) !== body.length) {
          return send(response, 400, 'IncompleteBody', 'The body does not match Content-Length.');
        }
        const etag = `"${createHash('md5').update(body).digest('hex')}"`;
        objects.set(id, {
          body,
          contentType: request.headers['content-type'] ?? 'binary/octet-stream',
          etag,
          modified: new Date(),
        });
        return response.writeHead(200, { etag }).end();
      }
      if ((method === 'GET' || method === 'HEAD') && key) {
        if (!object) {
          if (method === 'HEAD') return response.writeHead(404).end();
          return send(response, 404, 'NoSuchKey', 'The specified key does not exist.');
        }
        response.writeHead(200, {
          'content-type': object.contentType,
          'content-length': String(object.body.length),
          etag: object.etag,
          'last-modified': object.modified.toUTCString(),
        });
        if (method === 'GET' && cutAfter !== null) {
          // Half an object, then the connection drops (a store that dies while sending).
          return response.write(object.body.subarray(0, cutAfter), () => response.destroy());
        }
        return response.end(method === 'GET' ? object.body : undefined);
      }
      if (method === 'DELETE' && key) {
        objects.delete(id);
        return response.writeHead(204).end();
      }
      send(response, 501, 'NotImplemented', `${method} ${url.pathname} is not faked`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const [bucket = ''] = buckets;
  return {
    url,
    bucket,
    calls,
    /** The environment of a process storing its attachments here. */
    env: (overrides: Record<string, string> = {}): Record<string, string> => ({
      STORAGE: 's3',
      S3_BUCKET: bucket,
      S3_REGION: 'us-east-1',
      S3_ENDPOINT: url,
      S3_FORCE_PATH_STYLE: 'true',
      S3_ACCESS_KEY_ID: ACCESS_KEY_ID,
      S3_SECRET_ACCESS_KEY: SECRET_ACCESS_KEY,
      ...overrides,
    }),
    /** Keys stored in the bucket that start with `prefix`. */
    keys: (prefix = '') =>
      [...objects.keys()]
        .filter((id) => id.startsWith(`${bucket}/${prefix}`))
        .map((id) => id.slice(bucket.length + 1))
        .sort(),
    object: (key: string) => objects.get(`${bucket}/${key}`)?.body ?? null,
    /** Every request answers this status (an S3 `InternalError` body) until set back to null. */
    failWith: (status: number | null) => {
      failure = status;
    },
    /** GetObject sends this many bytes of the object and drops the connection, until null. */
    cutBodiesAfter: (bytes: number | null) => {
      cutAfter = bytes;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type FakeS3 = Awaited<ReturnType<typeof startFakeS3>>;
