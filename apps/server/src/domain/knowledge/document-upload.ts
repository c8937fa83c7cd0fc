/**
 * A document sent as a file (createDocument's multipart/form-data) made into what a JSON create gives:
 * its name, its format (said, or told by the file's Content-Type, or by its name's extension), and its
 * text: the file's UTF-8, or the text a PDF's pages hold, read when it is sent so that a broken, locked or
 * text-less PDF is refused at once, naming `file`, rather than `failed` later.
 */
import { createHash } from "node:crypto";
import type { DocumentFileFormat, DocumentFormat, DocumentUpload } from "@dhs/contract";
import { AppError } from "../app-error.js";
import type { PdfRefusal, PdfTextReading } from "./ports.js";

/** The most bytes a file may hold (the contract's 10 MiB). */
export const MAX_FILE_BYTES = 10 * 1024 * 1024;
/** The most bytes of UTF-8 a document's text may hold as content, or as a file of text (the contract's 1 MiB). */
export const MAX_CONTENT_BYTES = 1024 * 1024;
/** The most pages of a PDF that are read, and how long reading one may take: the contract's figures. */
export const PDF_MAX_PAGES = 500;
export const PDF_MAX_CHARACTERS = 2 * 1024 * 1024;
export const PDF_READ_SECONDS = 20;

/** The file part of a multipart request, as the HTTP layer read it. */
export interface UploadedFile {
  bytes: Uint8Array;
  /** The part's file name, as sent (undefined without one). */
  filename: string | undefined;
  /** The part's Content-Type, as sent (undefined without one). */
  contentType: string | undefined;
}

/** A file's document before the checks its text shares with a JSON create's content. */
export interface FileDocument {
  name: string;
  format: DocumentFormat;
  language: string | undefined;
  content: string;
  sizeBytes: number;
  /** What makes two uploads the same request: its fields and the file's digest. */
  fingerprintOf: Record<string, unknown>;
}

const BY_MEDIA_TYPE: Readonly<Record<string, DocumentFileFormat>> = {
  "application/pdf": "pdf",
  "text/plain": "text",
  "text/markdown": "markdown",
  "text/x-markdown": "markdown",
  "text/html": "html",
  "application/xhtml+xml": "html",
};
const BY_EXTENSION: Readonly<Record<string, DocumentFileFormat>> = {
  pdf: "pdf",
  txt: "text",
  text: "text",
  md: "markdown",
  markdown: "markdown",
  html: "html",
  htm: "html",
};

/**
 * `owner`: the account it is read for (accounts take turns reading PDFs). A file of text, Markdown or HTML
 * is held to a JSON create's content bound before anything is read of it: its passages could not fit a
 * document's anyway, and splitting it would be work thrown away.
 */
export async function fileDocument(
  fields: Omit<DocumentUpload, "file">,
  file: UploadedFile,
  pdf: PdfTextReading,
  owner: string,
): Promise<FileDocument> {
  if (file.bytes.length > MAX_FILE_BYTES)
    throw new AppError("payload_too_large", `The file is ${file.bytes.length} bytes; at most ${MAX_FILE_BYTES} are taken.`);
  const format = fields.format ?? formatOf(file);
  if (format !== "pdf" && file.bytes.length > MAX_CONTENT_BYTES)
    throw new AppError(
      "payload_too_large",
      `The file is ${file.bytes.length} bytes of ${format}; a document's text is at most ${MAX_CONTENT_BYTES} bytes (a PDF file, at most ${MAX_FILE_BYTES}).`,
    );
  const content = format === "pdf" ? await pdfText(file.bytes, pdf, owner) : utf8Text(file.bytes);
  return {
    name: fields.name ?? nameOf(file.filename),
    format,
    language: fields.language,
    content,
    sizeBytes: file.bytes.length,
    fingerprintOf: { ...fields, file: createHash("sha256").update(file.bytes).digest("hex") },
  };
}

function formatOf(file: UploadedFile): DocumentFileFormat {
  const mediaType = file.contentType?.split(";")[0]?.trim().toLowerCase();
  const byType = mediaType === undefined ? undefined : BY_MEDIA_TYPE[mediaType];
  if (byType) return byType;
  const extension = file.filename?.match(/\.([A-Za-z0-9]+)$/)?.[1]?.toLowerCase();
  const byName = extension === undefined ? undefined : BY_EXTENSION[extension];
  if (byName) return byName;
  throw invalid(
    "format",
    `could not be told from the file's Content-Type (${file.contentType ?? "none"}) or name (${file.filename ?? "none"}): give format (pdf, text, markdown or html)`,
  );
}

/** The file's name without its folders or control characters, within the contract's 200 characters. */
function nameOf(filename: string | undefined): string {
  let name = "";
  for (const char of (filename ?? "").split(/[\\/]/).at(-1) ?? "") {
    const code = char.codePointAt(0) ?? 0;
    if (code >= 0x20 && code !== 0x7f) name += char;
  }
  name = [...name.trim()].slice(0, 200).join("").trim();
  return name === "" ? "document" : name;
}

function utf8Text(bytes: Uint8Array): string {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw invalid("file", "must be text in UTF-8 (or a PDF, with format pdf)");
  }
}

const REFUSALS: Readonly<Record<PdfRefusal, (pages: number | undefined) => string>> = {
  broken: () => "is not a PDF that can be read (it is broken, or not a PDF)",
  password: () => "is protected by a password; send it unprotected",
  pages: (pages) => `has ${pages ?? "too many"} pages; at most ${PDF_MAX_PAGES} are read: split it`,
  text: () => `holds more text than a document may (${PDF_MAX_CHARACTERS} characters); split it`,
  no_text: () => "holds no text (a scanned PDF needs OCR first)",
  limits: () =>
    `could not be read within ${PDF_READ_SECONDS} seconds and the memory a PDF may take (its streams inflate to more than a PDF may); split or simplify it`,
};

async function pdfText(bytes: Uint8Array, pdf: PdfTextReading, owner: string): Promise<string> {
  const reading = await pdf.read(bytes, owner);
  if (reading.kind === "text") return reading.text;
  if (reading.kind === "busy")
    throw new AppError("service_unavailable", "This replica is reading as many PDFs as it may; send it again shortly.", {
      retryAfterSeconds: 5,
    });
  throw invalid("file", REFUSALS[reading.reason](reading.pages));
}

function invalid(path: string, message: string): AppError {
  return new AppError("validation_failed", [{ location: "body", path, message }]);
}
