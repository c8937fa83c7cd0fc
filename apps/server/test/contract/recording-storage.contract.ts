/**
 * What every adapter of the recordings' object store must do (domain/recordings/ports.ts), seen as the
 * job and the customer's readers see it, over HTTP: an upload target takes its one object with its
 * Content-Type until it expires; a download link serves that object as its file name until it expires;
 * a target or link changed in any way (another object, another method, a later expiry) or past its time
 * is refused with 403; a deleted object is gone. Run against the local directory with the service's own
 * routes (test/storage/local-recording-storage.test.ts) and against a real S3 API, versitygw
 * (test/storage/s3-recording-storage.test.ts).
 */
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { RecordingStorage, UploadTarget } from "../../src/domain/recordings/ports.js";

export interface RecordingStorageUnderTest {
  storage: RecordingStorage;
  close(): Promise<void>;
}

const OGG = "audio/ogg";
const bytes = (n: number) => new Uint8Array(Array.from({ length: n }, (_, i) => (i * 7 + 3) % 256));
const put = (target: UploadTarget, body: Uint8Array<ArrayBuffer>, url = target.url, headers = target.headers) =>
  fetch(url, { method: "PUT", headers, body });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The same URL with one query parameter (or the last path segment, for `key`) changed. */
function altered(url: string, change: { param?: [string, string]; lastSegment?: string }): string {
  const u = new URL(url);
  if (change.param) u.searchParams.set(...change.param);
  if (change.lastSegment) u.pathname = u.pathname.replace(/[^/]+$/, change.lastSegment);
  return u.toString();
}

export function recordingStorageContract(adapter: string, make: () => Promise<RecordingStorageUnderTest>): void {
  describe(`the recordings' object store (${adapter})`, () => {
    async function withStorage(run: (storage: RecordingStorage) => Promise<void>): Promise<void> {
      const under = await make();
      try {
        await run(under.storage);
      } finally {
        await under.close();
      }
    }
    const keyOf = () => `acct_1#test/${randomUUID()}.ogg`;

    it("takes an upload at its target and serves it at a download link, as its file name", () =>
      withStorage(async (storage) => {
        const key = keyOf();
        const target = await storage.uploadTarget(key, { contentType: OGG, expiresInS: 60 });
        expect(target.method).toBe("PUT");
        expect(target.expiresAt.getTime()).toBeGreaterThan(Date.now() + 55_000);
        const body = bytes(300_000);
        expect((await put(target, body)).ok).toBe(true);
        expect(await storage.stat(key)).toEqual({ sizeBytes: body.length });
        const link = await storage.downloadLink(key, { expiresInS: 3600, fileName: "session.ogg" });
        expect(link.expiresAt.getTime()).toBeGreaterThan(Date.now() + 3_590_000);
        const got = await fetch(link.url);
        expect(got.status).toBe(200);
        expect(got.headers.get("content-disposition")).toContain('filename="session.ogg"');
        expect(Buffer.from(await got.arrayBuffer()).equals(Buffer.from(body))).toBe(true);
      }));

    it("refuses a target or link changed to another object, another method or a later expiry", () =>
      withStorage(async (storage) => {
        const key = keyOf();
        const target = await storage.uploadTarget(key, { contentType: OGG, expiresInS: 60 });
        expect((await put(target, bytes(10), altered(target.url, { lastSegment: `${randomUUID()}.ogg` }))).status).toBe(403);
        expect((await put(target, bytes(10), undefined, { "content-type": "text/plain" })).status).toBe(403);
        const later = String(Number(new URL(target.url).searchParams.get("expires") ?? "0") + 3600);
        const laterAmz = String(Number(new URL(target.url).searchParams.get("X-Amz-Expires") ?? "0") + 3600);
        const stretched = new URL(target.url).searchParams.has("X-Amz-Expires")
          ? altered(target.url, { param: ["X-Amz-Expires", laterAmz] })
          : altered(target.url, { param: ["expires", later] });
        expect((await put(target, bytes(10), stretched)).status).toBe(403);
        expect((await put(target, bytes(10))).ok).toBe(true);
        const link = await storage.downloadLink(key, { expiresInS: 60, fileName: "a.ogg" });
        expect((await fetch(altered(link.url, { lastSegment: `${randomUUID()}.ogg` }))).status).toBe(403);
        expect((await fetch(link.url, { method: "PUT", body: bytes(10), headers: { "content-type": OGG } })).status).toBe(403);
        expect(await storage.stat(key)).toEqual({ sizeBytes: 10 });
      }));

    it("refuses a target and a link once they have expired", { timeout: 15_000 }, () =>
      withStorage(async (storage) => {
        const key = keyOf();
        const first = await storage.uploadTarget(key, { contentType: OGG, expiresInS: 60 });
        expect((await put(first, bytes(10))).ok).toBe(true);
        const target = await storage.uploadTarget(keyOf(), { contentType: OGG, expiresInS: 1 });
        const link = await storage.downloadLink(key, { expiresInS: 1, fileName: "a.ogg" });
        await sleep(2_100);
        expect((await put(target, bytes(10))).status).toBe(403);
        expect((await fetch(link.url)).status).toBe(403);
      }),
    );

    it("forgets a deleted object: nothing to stat, nothing to download", () =>
      withStorage(async (storage) => {
        const key = keyOf();
        expect(await storage.stat(key)).toBeUndefined();
        await storage.delete(key);
        expect((await put(await storage.uploadTarget(key, { contentType: OGG, expiresInS: 60 }), bytes(10))).ok).toBe(true);
        await storage.delete(key);
        expect(await storage.stat(key)).toBeUndefined();
        expect((await fetch((await storage.downloadLink(key, { expiresInS: 60, fileName: "a.ogg" })).url)).status).toBe(404);
      }));

    it("keeps keys apart: one object's link never serves another's", () =>
      withStorage(async (storage) => {
        const [a, b] = [keyOf(), keyOf()];
        await put(await storage.uploadTarget(a, { contentType: OGG, expiresInS: 60 }), bytes(11));
        await put(await storage.uploadTarget(b, { contentType: OGG, expiresInS: 60 }), bytes(22));
        const got = await fetch((await storage.downloadLink(b, { expiresInS: 60, fileName: "b.ogg" })).url);
        expect((await got.arrayBuffer()).byteLength).toBe(22);
        await expect(storage.uploadTarget("../escape.ogg", { contentType: OGG, expiresInS: 60 })).rejects.toThrow(/not a recording key/);
      }));
  });
}
