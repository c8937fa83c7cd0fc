/**
 * Recordings in an S3-compatible bucket (RecordingStorage), for production: AWS S3 or any store that
 * speaks its API (path-style addressing for self-hosted ones), through AWS's own client. Upload targets
 * and download links are SigV4 presigned URLs: the bucket checks them (method, object, expiry, and the
 * upload's Content-Type, which is signed), so the service needs no route of its own and the job never
 * sees the bucket's credentials. A presigned PUT may be repeated until it expires, for its one object.
 */
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { DependencyUnavailableError } from "../domain/dependency-errors.js";
import { type DownloadLink, isRecordingKey, type RecordingStorage, type UploadTarget } from "../domain/recordings/ports.js";

export interface S3RecordingStorageOptions {
  /** Unset: AWS's endpoint for the region. */
  endpoint?: string | undefined;
  region: string;
  bucket: string;
  /** Where in the bucket the recordings go (`recordings/` by default). */
  prefix?: string;
  /** Unset: the AWS SDK's own chain (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, a profile, the machine's role). */
  credentials?: { accessKeyId: string; secretAccessKey: string } | undefined;
  /** `https://endpoint/bucket/key` rather than `https://bucket.endpoint/key`: what most self-hosted stores need. */
  forcePathStyle: boolean;
  /** Each request's whole time (ms). */
  timeoutMs?: number;
  now?: () => number;
}

export class S3RecordingStorage implements RecordingStorage {
  private readonly client: S3Client;
  private readonly now: () => number;

  constructor(private readonly options: S3RecordingStorageOptions) {
    this.now = options.now ?? Date.now;
    this.client = new S3Client({
      region: options.region,
      ...(options.endpoint ? { endpoint: options.endpoint } : {}),
      forcePathStyle: options.forcePathStyle,
      ...(options.credentials ? { credentials: options.credentials } : {}),
      // One try here: the recording's own retries decide when to try again.
      maxAttempts: 1,
      requestHandler: { requestTimeout: options.timeoutMs ?? 10_000, connectionTimeout: options.timeoutMs ?? 10_000 },
    });
  }

  async uploadTarget(key: string, { contentType, expiresInS }: { contentType: string; expiresInS: number }): Promise<UploadTarget> {
    const command = new PutObjectCommand({ Bucket: this.options.bucket, Key: this.objectKey(key), ContentType: contentType });
    const url = await getSignedUrl(this.client, command, { expiresIn: expiresInS, signableHeaders: new Set(["content-type"]) });
    return { url, method: "PUT", headers: { "content-type": contentType }, expiresAt: this.expiry(expiresInS) };
  }

  async downloadLink(key: string, { expiresInS, fileName }: { expiresInS: number; fileName: string }): Promise<DownloadLink> {
    const command = new GetObjectCommand({
      Bucket: this.options.bucket,
      Key: this.objectKey(key),
      ResponseContentDisposition: `attachment; filename="${fileName.replace(/[^A-Za-z0-9._-]/g, "_")}"`,
    });
    return { url: await getSignedUrl(this.client, command, { expiresIn: expiresInS }), expiresAt: this.expiry(expiresInS) };
  }

  async stat(key: string): Promise<{ sizeBytes: number } | undefined> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.options.bucket, Key: this.objectKey(key) }));
      return { sizeBytes: head.ContentLength ?? 0 };
    } catch (error) {
      if (error instanceof S3ServiceException && error.$metadata.httpStatusCode === 404) return undefined;
      throw unavailable(error);
    }
  }

  async delete(key: string): Promise<void> {
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.options.bucket, Key: this.objectKey(key) }));
    } catch (error) {
      throw unavailable(error);
    }
  }

  close(): void {
    this.client.destroy();
  }

  private objectKey(key: string): string {
    if (!isRecordingKey(key)) throw new Error(`not a recording key: ${JSON.stringify(key)}`);
    return `${this.options.prefix ?? "recordings/"}${key}`;
  }

  private expiry(expiresInS: number): Date {
    return new Date(Math.floor(this.now() / 1000) * 1000 + expiresInS * 1000);
  }
}

/**
 * The bucket did not answer, or answered 5xx: an outage (retried). Any other answer (403 wrong
 * credentials, 404 no such bucket) is the operator's to fix, and is thrown as it came.
 */
function unavailable(error: unknown): unknown {
  const status = error instanceof S3ServiceException ? error.$metadata.httpStatusCode : undefined;
  if (status !== undefined && status < 500) return error;
  return new DependencyUnavailableError("recording_storage", { cause: error });
}
