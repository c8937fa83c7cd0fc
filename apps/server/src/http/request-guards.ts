/**
 * Reading a request body, with the refusals of input that is well-formed HTTP and JSON but that nothing
 * downstream should be handed: a Content-Type that is not a media type (`Content-Type: ø2%`), and JSON
 * strings with lone UTF-16 surrogates (`"\udfff"`), which I-JSON (RFC 7493) forbids, RFC 8785
 * canonicalization (idempotency fingerprints) cannot encode, and a LiveKit identity could not carry.
 * Both are answered 422 validation_failed, naming the header or the field. One middleware rather than
 * three, so a request without a body (every read) passes through it at the cost of two header lookups.
 */
import express, { type NextFunction, type Request, type RequestHandler, type Response } from "express";
import { AppError } from "../domain/app-error.js";

// type/subtype with RFC 6838 name characters, then `; name=value` parameters (tokens or quoted).
const NAME = "[a-z0-9][a-z0-9!#$&^_.+-]*";
const MEDIA_TYPE = new RegExp(`^${NAME}/${NAME}(\\s*;\\s*${NAME}=(${NAME}|"[a-z0-9!#$&^_.+ -]*"))*\\s*$`, "i");

/**
 * Path (dotted) of the first string or key with a lone surrogate, or undefined. Iterative: a body may
 * nest thousands of levels deep within the size limit, too deep for recursion.
 */
export function findLoneSurrogate(root: unknown): string | undefined {
  const pending: [unknown, string[]][] = [[root, []]];
  for (let item = pending.pop(); item; item = pending.pop()) {
    const [value, path] = item;
    if (typeof value === "string") {
      if (!value.isWellFormed()) return path.join(".");
    } else if (typeof value === "object" && value !== null) {
      for (const [key, child] of Object.entries(value)) {
        if (!key.isWellFormed()) return [...path, key.toWellFormed()].join(".");
        // Paths are built only for what can hold strings, so a deep array of arrays stays cheap.
        if (typeof child === "string" || (typeof child === "object" && child !== null)) pending.push([child, path.length < 32 ? [...path, key] : path]);
      }
    }
  }
  return undefined;
}

/** express.json within the limit, after the Content-Type check and before the well-formedness check. */
export function jsonBody(limitBytes: number): RequestHandler {
  const parse = express.json({ limit: limitBytes, strict: true });
  return (req: Request, res: Response, next: NextFunction): void => {
    const type = req.headers["content-type"];
    if (type !== undefined && !MEDIA_TYPE.test(type)) {
      return next(new AppError("validation_failed", [{ location: "header", path: "Content-Type", message: "must be a media type, such as application/json" }]));
    }
    // No framing header, no body (RFC 9112 6.3): nothing to parse.
    if (req.headers["content-length"] === undefined && req.headers["transfer-encoding"] === undefined) return next();
    parse(req, res, (error?: unknown) => {
      if (error) return next(error);
      const path = findLoneSurrogate(req.body);
      if (path === undefined) return next();
      next(new AppError("validation_failed", [{ location: "body", path, message: "must be well-formed Unicode (no lone surrogates)" }]));
    });
  };
}
