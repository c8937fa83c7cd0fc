/**
 * Recordings in a local directory (RecordingStorage), the embedded default (`pnpm demo`, development, a
 * single machine): the service itself takes uploads and serves downloads at signed URLs under
 * `<publicUrl>/recordings/` (http/recording-files.ts). An upload target is one-use: an object is written
 * once, and a second PUT to its target is refused, so a leaked target cannot replace a recording.
 */

import { randomUUID } from "node:crypto";
import { createWriteStream, type ReadStream } from "node:fs";
import { link, mkdir, open, rm, stat, unlink } from "node:fs/promises";
import { dirname, join } from "node:path";
import { type Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { type DownloadLink, isRecordingKey, type RecordingStorage, type UploadTarget } from "../domain/recordings/ports.js";
import type { SignedFields, UrlSigner } from "./signed-urls.js";

export interface LocalRecordingStorageOptions {
  /** Where the files are kept. */
  dir: string;
  /**
   * The service's address as the job and the customer's readers reach it (no trailing slash); a function
   * when it is known only once the server listens (PORT=0).
   */
  publicUrl: string | (() => string);
  signer: UrlSigner;
  now?: () => number;
}

/** What an upload came to: written, or refused because the object was written already, or was too large. */
export type LocalWrite = "written" | "exists" | "too_large";

class TooLarge extends Error {}

export class LocalRecordingStorage implements RecordingStorage {
  private readonly now: () => number;

  constructor(private readonly options: LocalRecordingStorageOptions) {
    this.now = options.now ?? Date.now;
  }

  async uploadTarget(key: string, { contentType, expiresInS }: { contentType: string; expiresInS: number }): Promise<UploadTarget> {
    const expires = this.expiry(expiresInS);
    const url = this.url("upload", { method: "PUT", key: checked(key), expires, fileName: "", contentType });
    return { url, method: "PUT", headers: { "content-type": contentType }, expiresAt: new Date(expires * 1000) };
  }

  async downloadLink(key: string, { expiresInS, fileName }: { expiresInS: number; fileName: string }): Promise<DownloadLink> {
    const expires = this.expiry(expiresInS);
    const url = this.url("files", { method: "GET", key: checked(key), expires, fileName, contentType: "" });
    return { url, expiresAt: new Date(expires * 1000) };
  }

  async stat(key: string): Promise<{ sizeBytes: number } | undefined> {
    try {
      return { sizeBytes: (await stat(this.path(key))).size };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.path(key), { force: true });
  }

  /** Whether a request's signed fields are this store's and still valid (http/recording-files.ts). */
  verify(fields: SignedFields, signature: string): boolean {
    return isRecordingKey(fields.key) && this.options.signer.verify(fields, signature, this.now());
  }

  /**
   * Writes an upload's bytes, all or nothing: to a part file first, then linked to the object's name,
   * which fails if the object exists (one write per object, even when two uploads race). More than
   * `maxBytes` are refused as they arrive, and nothing of them is kept.
   */
  async write(key: string, body: Readable, maxBytes: number): Promise<LocalWrite> {
    const path = this.path(key);
    await mkdir(dirname(path), { recursive: true });
    const part = `${path}.part-${randomUUID()}`;
    try {
      await pipeline(body, byteLimit(maxBytes), createWriteStream(part, { flags: "wx" }));
      await link(part, path);
      return "written";
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EEXIST") return "exists";
      if (error instanceof TooLarge) return "too_large";
      throw error;
    } finally {
      // Linked or not, the part's name goes: ENOENT when the write never made it; any other failure of
      // this unlink is the write's own error's, already thrown or answered.
      await unlink(part).catch(() => undefined);
    }
  }

  /**
   * The object's bytes and size, or undefined when there is none. The file is opened first and its size
   * read from what was opened: a download that started is served whole from it, whatever deletes the
   * name meanwhile (an erasure, the retention), rather than racing it between a look and an open.
   */
  async read(key: string): Promise<{ stream: ReadStream; sizeBytes: number } | undefined> {
    let handle: Awaited<ReturnType<typeof open>>;
    try {
      handle = await open(this.path(key), "r");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
    try {
      const { size } = await handle.stat();
      return { stream: handle.createReadStream({ autoClose: true }), sizeBytes: size };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  private path(key: string): string {
    return join(this.options.dir, ...checked(key).split("/"));
  }

  private expiry(expiresInS: number): number {
    return Math.floor(this.now() / 1000) + expiresInS;
  }

  private url(kind: "upload" | "files", fields: SignedFields): string {
    const path = fields.key.split("/").map(encodeURIComponent).join("/");
    const query = new URLSearchParams({ expires: String(fields.expires), signature: this.options.signer.sign(fields) });
    if (fields.fileName) query.set("filename", fields.fileName);
    const { publicUrl } = this.options;
    return `${typeof publicUrl === "string" ? publicUrl : publicUrl()}/recordings/${kind}/${path}?${query}`;
  }
}

/** Passes the bytes through until there are more than `maxBytes`, then fails. */
function byteLimit(maxBytes: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      done(seen > maxBytes ? new TooLarge() : null, chunk);
    },
  });
}

function checked(key: string): string {
  if (!isRecordingKey(key)) throw new Error(`not a recording key: ${JSON.stringify(key)}`);
  return key;
}
