/**
 * Reading a request body, with the refusals of input that is well-formed HTTP and JSON but that nothing
 * downstream should be handed: a Content-Type that is not a media type (`Content-Type: ø2%`); JSON
 * strings with lone UTF-16 surrogates (`"\udfff"`), which I-JSON (RFC 7493) forbids, RFC 8785
 * canonicalization (idempotency fingerprints) cannot encode, and a LiveKit identity could not carry;
 * U+0000 in any string or key (contract guide, "Errors"), which PostgreSQL's text and jsonb cannot hold:
 * taken, it would stop the history's writes of the session it is in;
 * numbers too large to be finite (`1e400`), which canonicalization refuses; and nesting deeper than the
 * contract allows `metadata`, which recursive code downstream (canonicalization, the validator) would
 * overflow the stack on. Each is answered 422 validation_failed, naming the header or the field. One
 * middleware rather than several, so a request without a body (every read) passes through it at the cost
 * of two header lookups.
 */
import express, { type NextFunction, type Request, type RequestHandler, type Response } from "express";
import { AppError } from "../domain/app-error.js";

// type/subtype with RFC 6838 name characters, then `; name=value` parameters (tokens or quoted).
const NAME = "[a-z0-9][a-z0-9!#$&^_.+-]*";
const MEDIA_TYPE = new RegExp(`^${NAME}/${NAME}(\\s*;\\s*${NAME}=(${NAME}|"[a-z0-9!#$&^_.+ -]*"))*\\s*$`, "i");

/**
 * How deep `metadata` may nest (the contract's `x-max-depth` on SessionCreate.metadata, checked against
 * this by a test). `metadata` itself is level 1; since it is the only free-form field, a body may nest one
 * level more, and no deeper.
 */
export const METADATA_MAX_DEPTH = 32;
const BODY_MAX_DEPTH = METADATA_MAX_DEPTH + 1;

const SURROGATE = "must be well-formed Unicode (no lone surrogates)";
const NUL = "must not contain U+0000 (NUL)";

/** What is wrong with a string or key, or undefined: a lone surrogate, or U+0000. */
export function stringProblem(text: string): string | undefined {
  if (!text.isWellFormed()) return SURROGATE;
  if (text.includes("\u0000")) return NUL;
  return undefined;
}

export interface IllFormed {
  /** Dotted path of the offending key or value ("" for the body itself). */
  path: string;
  message: string;
}

/**
 * The first thing in a parsed JSON body that the service must not be handed, or undefined: a string or
 * key with a lone UTF-16 surrogate or U+0000, a number JSON.parse could only read as Infinity (`1e400`), or an
 * object or array nested deeper than the body may. Iterative, so a body nested far deeper than the call stack
 * is judged without recursion.
 */
export function findIllFormed(root: unknown): IllFormed | undefined {
  const pending: [unknown, string[]][] = [[root, []]];
  for (let item = pending.pop(); item; item = pending.pop()) {
    const [value, path] = item;
    if (typeof value === "string") {
      const problem = stringProblem(value);
      if (problem !== undefined) return { path: path.join("."), message: problem };
    } else if (typeof value === "number") {
      if (!Number.isFinite(value)) return { path: path.join("."), message: "must be a finite number" };
    } else if (typeof value === "object" && value !== null) {
      if (path.length >= BODY_MAX_DEPTH)
        return { path: path.join("."), message: `must nest at most ${METADATA_MAX_DEPTH} levels deep (metadata is level 1)` };
      for (const [key, child] of Object.entries(value)) {
        const problem = stringProblem(key);
        // The path shows the key as it can be printed (a lone surrogate as U+FFFD, NUL as \u0000).
        if (problem !== undefined) return { path: [...path, printable(key)].join("."), message: problem };
        if (typeof child === "string" || typeof child === "number" || (typeof child === "object" && child !== null))
          pending.push([child, [...path, key]]);
      }
    }
  }
  return undefined;
}

function printable(key: string): string {
  return key.toWellFormed().replaceAll("\u0000", "\\u0000");
}

/**
 * express.json within the limit (`larger`'s for the operations it names), after the Content-Type check
 * and before the findIllFormed check; a request for which `takes` says no is passed on unread (its body
 * and Content-Type are ignored).
 */
export function jsonBody(
  limitBytes: number,
  takes: (req: Request) => boolean = () => true,
  larger?: { limitBytes: number; for: (req: Request) => boolean },
): RequestHandler {
  const parseDefault = express.json({ limit: limitBytes, strict: true });
  // An operation that takes a larger body (a document) has a parser of its own; every other keeps the default.
  const parseLarger = larger ? express.json({ limit: larger.limitBytes, strict: true }) : undefined;
  return (req: Request, res: Response, next: NextFunction): void => {
    const parse = parseLarger && larger?.for(req) ? parseLarger : parseDefault;
    // Not taken, or read already (a multipart body: multipart-body.ts).
    if (!takes(req) || req.body !== undefined) return next();
    const type = req.headers["content-type"];
    if (type !== undefined && !MEDIA_TYPE.test(type)) {
      return next(
        new AppError("validation_failed", [
          { location: "header", path: "Content-Type", message: "must be a media type, such as application/json" },
        ]),
      );
    }
    // No framing header, no body (RFC 9112 6.3): nothing to parse.
    if (req.headers["content-length"] === undefined && req.headers["transfer-encoding"] === undefined) return next();
    parse(req, res, (error?: unknown) => {
      if (error) return next(error);
      const problem = findIllFormed(req.body);
      if (problem === undefined) return next();
      next(new AppError("validation_failed", [{ location: "body", ...problem }]));
    });
  };
}
