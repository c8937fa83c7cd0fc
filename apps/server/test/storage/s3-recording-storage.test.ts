/**
 * The S3 adapter (storage/s3-recording-storage.ts) against versitygw, a real S3 API that checks SigV4:
 * the port's contract, then what only a bucket does: a missing bucket is the operator's error, and a
 * bucket that does not answer is an outage (DependencyUnavailableError, retried by the recording).
 */
import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { DependencyUnavailableError } from "../../src/domain/dependency-errors.js";
import { S3RecordingStorage } from "../../src/storage/s3-recording-storage.js";
import { recordingStorageContract } from "../contract/recording-storage.contract.js";
import { type S3Server, startS3Server } from "../support/s3-server.js";

let s3: S3Server;
beforeAll(async () => {
  s3 = await startS3Server(inject("versitygwPath"));
});
afterAll(() => s3?.stop());

async function bucketStorage(bucket = `dhs-${crypto.randomUUID().slice(0, 8)}`, create = true) {
  const credentials = { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey };
  if (create) {
    const admin = new S3Client({ region: s3.region, endpoint: s3.endpoint, forcePathStyle: true, credentials });
    await admin.send(new CreateBucketCommand({ Bucket: bucket }));
    admin.destroy();
  }
  const storage = new S3RecordingStorage({
    endpoint: s3.endpoint,
    region: s3.region,
    bucket,
    forcePathStyle: true,
    credentials,
    timeoutMs: 2_000,
  });
  return { storage, close: async () => storage.close() };
}

recordingStorageContract("an S3 bucket (versitygw)", () => bucketStorage());

describe("an S3 bucket", () => {
  it("that does not exist is the operator's error, not an outage", async () => {
    const { storage, close } = await bucketStorage("no-such-bucket", false);
    try {
      const failure = await storage.stat("acct_1/s.ogg").catch((error: unknown) => error);
      // HeadObject of a missing bucket is a 404 too: nothing is there, whatever the reason.
      expect(failure === undefined || !(failure instanceof DependencyUnavailableError)).toBe(true);
      await expect(storage.delete("acct_1/s.ogg")).rejects.not.toBeInstanceOf(DependencyUnavailableError);
    } finally {
      await close();
    }
  });

  it("that does not answer is an outage, tried again later", async () => {
    const storage = new S3RecordingStorage({
      endpoint: "http://127.0.0.1:9",
      region: "us-east-1",
      bucket: "any",
      forcePathStyle: true,
      credentials: { accessKeyId: "a", secretAccessKey: "b" },
      timeoutMs: 1_000,
    });
    try {
      await expect(storage.stat("acct_1/s.ogg")).rejects.toBeInstanceOf(DependencyUnavailableError);
      await expect(storage.delete("acct_1/s.ogg")).rejects.toBeInstanceOf(DependencyUnavailableError);
      // Presigning is local: a target can be made while the bucket is down (the upload then fails and is retried).
      expect((await storage.uploadTarget("acct_1/s.ogg", { contentType: "audio/ogg", expiresInS: 60 })).url).toContain("X-Amz-Signature=");
    } finally {
      storage.close();
    }
  });
});
