/**
 * createDocument's `multipart/form-data` body, read with busboy (the parser multer is built on) within
 * the contract's bounds: one `file` part of at most 10 MiB, and a few short text parts. The text parts
 * become the body the contract's validator checks (an unknown part is then refused by name, like an
 * unknown JSON field), with `file` standing for the file; the file itself is kept beside the request for
 * the handler (`uploadOf`). Anything the parser cannot read, a file sent twice, or a `file` part that is
 * not a file is answered 422 naming it; a file over the bound 413, as soon as it is seen.
 */
import busboy from "busboy";
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { AppError } from "../domain/app-error.js";
import type { UploadedFile } from "../domain/knowledge/document-upload.js";

const uploads = new WeakMap<Request, UploadedFile>();

/** The file a multipart request carried, once multipartBody read it. */
export function uploadOf(req: Request): UploadedFile | undefined {
  return uploads.get(req);
}

interface Issue {
  location: "body" | "header";
  path: string;
  message: string;
}

const MULTIPART = /^multipart\/form-data\s*(;|$)/i;

export function multipartBody(options: { maxFileBytes: number; for: (req: Request) => boolean }): RequestHandler {
  const { maxFileBytes } = options;
  return (req: Request, _res: Response, next: NextFunction): void => {
    if (!options.for(req) || !MULTIPART.test(req.headers["content-type"] ?? "")) return next();
    const declared = Number(req.headers["content-length"]);
    // A body this long cannot hold a file within the bound and a few short parts: refused unread.
    if (declared > maxFileBytes + 64 * 1024) return next(tooLarge(maxFileBytes));
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        defParamCharset: "utf8",
        // busboy stops a file when it reaches the limit: one byte more tells a file over the bound from one at it.
        limits: { fileSize: maxFileBytes + 1, files: 2, fields: 8, parts: 10, fieldSize: 1024, fieldNameSize: 64, headerPairs: 20 },
      });
    } catch {
      return next(invalid([{ location: "header", path: "Content-Type", message: "must be multipart/form-data with a boundary" }]));
    }
    const body: Record<string, string> = {};
    const seen = new Set<string>();
    const issues: Issue[] = [];
    let file: UploadedFile | undefined;
    let done = false;
    const finish = (error?: AppError): void => {
      if (done) return;
      done = true;
      req.unpipe(parser);
      if (error) return next(error);
      if (issues.length > 0) return next(invalid(issues));
      if (file) uploads.set(req, file);
      req.body = body;
      next();
    };
    const once = (name: string): boolean => {
      if (!seen.has(name)) return seen.add(name) && true;
      issues.push({ location: "body", path: name, message: "must be sent once" });
      return false;
    };

    parser.on("file", (name, stream, info) => {
      const chunks: Buffer[] = [];
      const keep = once(name);
      stream.on("data", (chunk: Buffer) => {
        if (keep && name === "file") chunks.push(chunk);
      });
      stream.on("limit", () => finish(tooLarge(maxFileBytes)));
      // The form's own error (its end cut short) is the parser's too, answered there.
      stream.on("error", () => {});
      stream.on("close", () => {
        if (!keep) return;
        // Unknown parts stay in the body, so the contract's validator names them.
        body[name] = "";
        if (name === "file") file = { bytes: Buffer.concat(chunks), filename: info.filename, contentType: info.mimeType };
      });
    });
    parser.on("field", (name, value, info) => {
      if (!once(name)) return;
      if (name === "file") {
        issues.push({ location: "body", path: "file", message: "must be a file part, with a filename (curl: -F file=@path)" });
        return;
      }
      if (info.valueTruncated) issues.push({ location: "body", path: name, message: "must be at most 1024 bytes" });
      body[name] = value;
    });
    const overflow = (what: string) => () => issues.push({ location: "body", path: "", message: `must have at most ${what}` });
    parser.on("filesLimit", overflow("one file"));
    parser.on("fieldsLimit", overflow("8 fields"));
    parser.on("partsLimit", overflow("10 parts"));
    parser.on("error", () =>
      finish(invalid([{ location: "body", path: "", message: "must be well-formed multipart/form-data (RFC 7578)" }])),
    );
    parser.on("close", () => finish());
    req.on("error", () => finish(invalid([{ location: "body", path: "", message: "was not received whole" }])));
    req.pipe(parser);
  };
}

function tooLarge(maxFileBytes: number): AppError {
  return new AppError("payload_too_large", `The file exceeds ${maxFileBytes} bytes.`);
}

function invalid(issues: Issue[]): AppError {
  return new AppError("validation_failed", issues);
}
