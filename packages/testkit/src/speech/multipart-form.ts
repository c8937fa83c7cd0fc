/**
 * multipart/form-data (RFC 7578), as OpenAI's SDK uploads a transcription's file and fields. Small and
 * strict rather than a dependency: the body is already in memory and bounded (http-body.ts), so this only
 * has to find the parts, and it refuses by name what it cannot read (no boundary, a part without a name,
 * headers that never end, more parts than any real request has) instead of guessing.
 */

export interface FormPart {
  name: string;
  /** The file's name for a file part; undefined for a plain field. */
  filename: string | undefined;
  contentType: string | undefined;
  data: Buffer;
}

/** RFC 2046's longest boundary. */
const MAX_BOUNDARY = 70;
/** A part's headers are a line or three; a block this long without its blank line is not a part. */
const MAX_HEADER_BYTES = 16 * 1024;
/** OpenAI's transcription takes about a dozen fields. */
const MAX_PARTS = 64;
const CRLF = Buffer.from("\r\n");
const HEADERS_END = Buffer.from("\r\n\r\n");

/** The boundary a multipart/form-data content type names, or undefined when it is not one. */
export function formBoundary(contentType: string | undefined): string | undefined {
  const [type, ...rest] = (contentType ?? "").split(";");
  if (type?.trim().toLowerCase() !== "multipart/form-data") return undefined;
  const boundary = params(`;${rest.join(";")}`).get("boundary");
  return boundary && boundary.length <= MAX_BOUNDARY ? boundary : undefined;
}

/** The parts of a multipart/form-data body, in order; an Error saying what is wrong with a malformed one. */
export function parseMultipart(body: Buffer, boundary: string): FormPart[] {
  const delimiter = Buffer.from(`--${boundary}`);
  const next = Buffer.from(`\r\n--${boundary}`);
  // The first delimiter opens the body or follows a preamble's line break.
  let at = body.subarray(0, delimiter.length).equals(delimiter) ? 0 : body.indexOf(next);
  if (at < 0) throw new Error("a multipart body without its boundary");
  if (at > 0) at += CRLF.length;
  const parts: FormPart[] = [];
  for (;;) {
    at += delimiter.length;
    if (body.toString("latin1", at, at + 2) === "--") return parts;
    if (!body.subarray(at, at + 2).equals(CRLF)) throw new Error("a multipart boundary not followed by a line break");
    if (parts.length === MAX_PARTS) throw new Error(`a multipart body of more than ${MAX_PARTS} parts`);
    const start = at + CRLF.length;
    // A part with no headers at all has its blank line at once (the CRLF before it ends the delimiter line).
    const found = body.subarray(start, start + MAX_HEADER_BYTES).indexOf(HEADERS_END);
    const headersEnd = body.subarray(start, start + 2).equals(CRLF) ? start - 2 : found < 0 ? -1 : start + found;
    if (headersEnd < 0) throw new Error("a multipart part whose headers never end");
    const end = body.indexOf(next, headersEnd + HEADERS_END.length);
    if (end < 0) throw new Error("a multipart body cut short: its closing boundary is missing");
    parts.push(part(body.toString("utf8", start, Math.max(start, headersEnd)), body.subarray(headersEnd + HEADERS_END.length, end)));
    at = end + CRLF.length;
  }
}

function part(headerBlock: string, data: Buffer): FormPart {
  const headers = new Map<string, string>();
  for (const line of headerBlock.split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const disposition = headers.get("content-disposition") ?? "";
  if (!/^form-data\s*(;|$)/i.test(disposition)) throw new Error("a multipart part that is not form-data");
  const fields = params(disposition.slice(disposition.indexOf(";")));
  const name = fields.get("name");
  if (name === undefined || name === "") throw new Error("a multipart part without a name");
  return { name, filename: fields.get("filename"), contentType: headers.get("content-type"), data };
}

/** `; key=value; key="quoted value"` parameters; browsers and undici escape quotes in names as %22. */
function params(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const match of text.matchAll(/;\s*([\w*.-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]*))/g)) {
    const key = (match[1] as string).toLowerCase();
    const value = match[2] === undefined ? (match[3] ?? "") : match[2].replace(/\\(.)/g, "$1");
    if (!out.has(key)) out.set(key, value.replace(/%22/g, '"').replace(/%0D%0A/gi, "\r\n"));
  }
  return out;
}

/** The text of the field `name` (the first such part), or undefined. */
export function formField(parts: FormPart[], name: string): string | undefined {
  return parts.find((p) => p.name === name && p.filename === undefined)?.data.toString("utf8");
}
