import type { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { AppError } from '../errors';
import type { Logger } from '../log';
import { checkKey, type FileStorage } from './storage';

export type S3Settings = {
  bucket: string;
  region: string;
  /** An S3-compatible server's address; unset: the provider's own for the region. */
  endpoint?: string;
  /** `endpoint/bucket/key` instead of `bucket.endpoint/key` (most self-hosted servers). */
  forcePathStyle: boolean;
  /** Prepended to every key (e.g. `attachments/`), so a bucket can hold other things too. */
  prefix: string;
  /** Both or neither; neither: the SDK's own chain (AWS_* variables, profiles, instance roles). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
};

/** A connection that takes longer than this fails (an unreachable endpoint). */
const CONNECT_TIMEOUT_MS = 5000;
/** A connection idle this long, sending or receiving, fails (a store that stopped answering). */
const IDLE_TIMEOUT_MS = 30_000;

const isMissingKey = (error: unknown) =>
  (error as { name?: string }).name === 'NoSuchKey' ||
  (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404;

/**
 * Files in an S3-compatible bucket through the AWS SDK v3 client, under `prefix` + key. A put is
 * one PutObject whose body streams from the caller (the size is known, so no multipart upload is
 * needed up to S3's 5 GiB): S3 stores it whole or not at all. A get streams the object's body.
 * A failed request (the SDK has retried what it could) is logged with its cause and answered
 * `503 {"error":"storage unavailable"}`, never a 500 with the store's details.
 */
export function s3Storage(settings: S3Settings, log: Logger): FileStorage & { check(): Promise<void> } {
  const client = new S3Client({
    region: settings.region,
    endpoint: settings.endpoint,
    forcePathStyle: settings.forcePathStyle,
    credentials: settings.credentials,
    // Checksums only where an operation requires them: S3-compatible servers do not all accept
    // the aws-chunked trailing checksums the SDK otherwise adds to streamed bodies. Attachments
    // carry their own SHA-256 in the database.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    requestHandler: { connectionTimeout: CONNECT_TIMEOUT_MS, socketTimeout: IDLE_TIMEOUT_MS },
    // The SDK's own warnings in the process's log rather than on the console; its per-request
    // lines and errors are left out (each failure is logged below once, with its cause).
    logger: {
      debug: () => {},
      info: () => {},
      warn: (...content: unknown[]) => log.warn({ s3: content }, 'object storage client warning'),
      error: () => {},
    },
  });
  const Bucket = settings.bucket;
  const objectKey = (key: string) => settings.prefix + checkKey(key);
  const unavailable = (error: unknown, operation: string, key?: string) => {
    log.error({ err: error, bucket: Bucket, key, operation }, 'object storage request failed');
    return AppError.storageUnavailable();
  };

  return {
    async put(key, body: Readable, size) {
      const Key = objectKey(key);
      // A body that breaks off would leave the request waiting for the rest: abort it instead.
      const abort = new AbortController();
      const onError = (error: Error) => abort.abort(error);
      body.once('error', onError);
      try {
        await client.send(
          new PutObjectCommand({
            Bucket,
            Key,
            Body: body,
            ContentLength: size,
            ContentType: 'application/octet-stream',
          }),
          { abortSignal: abort.signal },
        );
      } catch (error) {
        body.destroy();
        throw unavailable(abort.signal.reason ?? error, 'PutObject', Key);
      } finally {
        body.off('error', onError);
      }
    },
    async get(key) {
      const Key = objectKey(key);
      try {
        const object = await client.send(new GetObjectCommand({ Bucket, Key }));
        const body = object.Body as Readable | undefined;
        if (!body || object.ContentLength === undefined) throw new Error('GetObject answered no body');
        return { body, size: object.ContentLength };
      } catch (error) {
        if (isMissingKey(error)) return null;
        throw unavailable(error, 'GetObject', Key);
      }
    },
    async delete(key) {
      const Key = objectKey(key);
      try {
        await client.send(new DeleteObjectCommand({ Bucket, Key }));
      } catch (error) {
        if (isMissingKey(error)) return;
        throw unavailable(error, 'DeleteObject', Key);
      }
    },
    /** Whether the bucket exists and the credentials reach it (HeadBucket). */
    async check() {
      try {
        await client.send(new HeadBucketCommand({ Bucket }));
      } catch (error) {
        throw unavailable(error, 'HeadBucket');
      }
    },
  };
}
