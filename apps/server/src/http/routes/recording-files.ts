/**
 * The local recordings store's own URLs (storage/local-recording-storage.ts), outside the API and its
 * keys: the signature in the URL is the credential. `PUT /recordings/upload/<key>` takes a job's upload
 * (once per object, within the size bound), `GET /recordings/files/<key>` serves a download. A link that
 * is forged, expired, for another object or another method is `403 forbidden`, as S3 answers one. A
 * link is no more than its recording allows at the moment it is used: an upload only while the recording
 * waits for its file, a download only while it is ready, so an erased recording cannot be written back
 * or read with a link handed out before the erasure.
 */
import { pipeline } from "node:stream/promises";
import { type Request, Router } from "express";
import { AppError } from "../../domain/app-error.js";
import type { LocalRecordingStorage } from "../../storage/local-recording-storage.js";
import type { SignedFields } from "../../storage/signed-urls.js";

export interface RecordingFilesOptions {
  /** The largest upload taken (bytes). */
  maxBytes: number;
  /** What downloads are served as. */
  contentType: string;
  /** Whether the object's recording takes an upload (PUT) or may be read (GET) now. */
  allows(key: string, method: "PUT" | "GET"): Promise<boolean>;
}

export function recordingFileRoutes(storage: LocalRecordingStorage, options: RecordingFilesOptions): Router {
  const router = Router();
  router.put("/recordings/upload/*key", async (req, res) => {
    const fields = signedFields(req, "PUT");
    if (!storage.verify(fields, String(req.query.signature ?? ""))) throw refused();
    if (!(await options.allows(fields.key, "PUT")))
      throw new AppError("forbidden", "This recording takes no file now: it was settled, failed or erased.");
    const declared = Number(req.headers["content-length"] ?? Number.NaN);
    if (declared > options.maxBytes) throw tooLarge(options.maxBytes);
    const written = await storage.write(fields.key, req, options.maxBytes);
    if (written === "too_large") throw tooLarge(options.maxBytes);
    if (written === "exists") throw new AppError("forbidden", "This upload target was used already: a recording is written once.");
    res.status(201).end();
  });
  router.get("/recordings/files/*key", async (req, res) => {
    const fields = signedFields(req, "GET");
    if (!storage.verify(fields, String(req.query.signature ?? ""))) throw refused();
    const gone = () => new AppError("not_found", "No such recording: it was deleted, or has expired.");
    if (!(await options.allows(fields.key, "GET"))) throw gone();
    const file = await storage.read(fields.key);
    if (!file) throw gone();
    res.setHeader("Content-Type", options.contentType);
    res.setHeader("Content-Length", String(file.sizeBytes));
    res.setHeader("Content-Disposition", `attachment; filename="${fields.fileName.replace(/[^A-Za-z0-9._-]/g, "_")}"`);
    // A read that fails midway ends this download, short of its Content-Length, so the reader sees it
    // aborted; pipeline destroys both sides, and the error is that response's alone.
    await pipeline(file.stream, res).catch(() => undefined);
  });
  // A link signed for one method, used with another: refused as S3 refuses it.
  router.all(["/recordings/upload/*key", "/recordings/files/*key"], () => {
    throw refused();
  });
  return router;
}

function signedFields(req: Request, method: "GET" | "PUT"): SignedFields {
  const segments = (req.params as { key?: string[] }).key ?? [];
  return {
    method,
    key: segments.join("/"),
    expires: Number(req.query.expires),
    fileName: method === "GET" ? String(req.query.filename ?? "") : "",
    // An upload is signed for the Content-Type it must be sent with: another one voids it.
    contentType: method === "PUT" ? String(req.headers["content-type"] ?? "") : "",
  };
}

const refused = () => new AppError("forbidden", "This link is not valid: it has expired, or was made for another recording or method.");
const tooLarge = (maxBytes: number) => new AppError("payload_too_large", `A recording is at most ${maxBytes} bytes.`);
