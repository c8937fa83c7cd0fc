/**
 * The local directory store (storage/local-recording-storage.ts) with the service's own routes
 * (http/routes/recording-files.ts) on an Express app of its own: the port's contract, then what only
 * this store promises: a target writes its object once, uploads stay within their bound.
 */
import { mkdtemp, rm } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import express from "express";
import { describe, expect, it } from "vitest";
import { AppError } from "../../src/domain/app-error.js";
import { errorAnswer, toAppError } from "../../src/http/error-handler.js";
import { recordingFileRoutes } from "../../src/http/routes/recording-files.js";
import { LocalRecordingStorage } from "../../src/storage/local-recording-storage.js";
import { UrlSigner } from "../../src/storage/signed-urls.js";
import { recordingStorageContract } from "../contract/recording-storage.contract.js";

async function localStorage(maxBytes = 10_000_000) {
  const dir = await mkdtemp(join(tmpdir(), "dhs-recordings-"));
  const app = express();
  let storage: LocalRecordingStorage | undefined;
  app.use((req, res, next) =>
    storage ? recordingFileRoutes(storage, { maxBytes, contentType: "audio/ogg", allows: async () => true })(req, res, next) : next(),
  );
  app.use((error: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    const { status, body } = errorAnswer(res, error instanceof AppError ? error : toAppError(error), "req_test");
    res.status(status).json(body);
  });
  const server = app.listen(0);
  await new Promise((resolve) => server.once("listening", resolve));
  const publicUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  storage = new LocalRecordingStorage({ dir, publicUrl, signer: new UrlSigner(Buffer.from("test-secret-of-32-bytes-at-least!")) });
  return {
    storage,
    close: async () => {
      await new Promise((resolve) => server.close(resolve));
      await rm(dir, { recursive: true, force: true });
    },
  };
}

recordingStorageContract("a local directory, served by the service", () => localStorage());

describe("the local directory store", () => {
  it("writes an object once: its target used again is refused, and the first upload stays", async () => {
    const { storage, close } = await localStorage();
    try {
      const target = await storage.uploadTarget("acct_1/s1.ogg", { contentType: "audio/ogg", expiresInS: 60 });
      const upload = (n: number) => fetch(target.url, { method: "PUT", headers: target.headers, body: new Uint8Array(n).fill(1) });
      const [a, b] = await Promise.all([upload(1000), upload(2000)]);
      expect([a.status, b.status].sort()).toEqual([201, 403]);
      expect((await upload(3000)).status).toBe(403);
      expect([1000, 2000]).toContain((await storage.stat("acct_1/s1.ogg"))?.sizeBytes);
    } finally {
      await close();
    }
  });

  it("refuses an upload past its bound, keeping nothing of it", async () => {
    const { storage, close } = await localStorage(1_000);
    try {
      const target = await storage.uploadTarget("acct_1/big.ogg", { contentType: "audio/ogg", expiresInS: 60 });
      const chunks = new ReadableStream({
        start(controller) {
          for (let i = 0; i < 4; i++) controller.enqueue(new Uint8Array(600));
          controller.close();
        },
      });
      const answer = await fetch(target.url, { method: "PUT", headers: target.headers, body: chunks, duplex: "half" } as RequestInit);
      expect(answer.status).toBe(413);
      expect(await storage.stat("acct_1/big.ogg")).toBeUndefined();
    } finally {
      await close();
    }
  });

  it("serves a download that started whole, whatever deletes the file meanwhile; one of a file already gone is none", async () => {
    const { storage, close } = await localStorage();
    try {
      const target = await storage.uploadTarget("acct_1/race.ogg", { contentType: "audio/ogg", expiresInS: 60 });
      const bytes = new Uint8Array(300_000).fill(9);
      expect((await fetch(target.url, { method: "PUT", headers: target.headers, body: bytes })).status).toBe(201);
      const file = await storage.read("acct_1/race.ogg");
      await storage.delete("acct_1/race.ogg");
      const chunks: Buffer[] = [];
      for await (const chunk of file?.stream ?? []) chunks.push(chunk as Buffer);
      expect([file?.sizeBytes, Buffer.concat(chunks).length]).toEqual([300_000, 300_000]);
      expect(await storage.read("acct_1/race.ogg")).toBeUndefined();
    } finally {
      await close();
    }
  });
});
