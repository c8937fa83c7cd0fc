import { describe, expect, it } from "vitest";
import { AppError } from "../app-error.js";
import { fileDocument, MAX_CONTENT_BYTES, MAX_FILE_BYTES, type UploadedFile } from "./document-upload.js";
import type { PdfReading, PdfRefusal, PdfTextReading } from "./ports.js";

const file = (text: string, filename?: string, contentType?: string): UploadedFile => ({
  bytes: Buffer.from(text),
  filename,
  contentType,
});

/** A PDF reader that answers what the test says, and counts its reads. */
function pdfReader(reading: PdfReading): PdfTextReading & { reads: number } {
  return {
    reads: 0,
    async read(_bytes, owner) {
      expect(owner).toBe("acct_1");
      this.reads += 1;
      return reading;
    },
  };
}
const NO_PDF = pdfReader({ kind: "busy" });

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe("a file's document", () => {
  it.each([
    ["text/markdown", "a.bin", "markdown"],
    ["text/html; charset=utf-8", undefined, "html"],
    ["TEXT/PLAIN", "a.md", "text"],
    ["application/octet-stream", "Price List.HTM", "html"],
    [undefined, "notes.markdown", "markdown"],
    [undefined, "readme.txt", "text"],
  ] as const)("with Content-Type %s and name %s is %s", async (type, name, format) => {
    expect((await fileDocument({}, file("Open at 9.", name, type), NO_PDF, "acct_1")).format).toBe(format);
  });

  it("keeps the format it is given over the Content-Type and the name", async () => {
    expect((await fileDocument({ format: "text" }, file("<p>x</p>", "a.html", "text/html"), NO_PDF, "acct_1")).format).toBe("text");
  });

  it("is named after its file, without folders or control characters, within 200 characters; `document` without one", async () => {
    expect((await fileDocument({}, file("x", "C:\\docs\\uploads/menu.md"), NO_PDF, "acct_1")).name).toBe("menu.md");
    expect((await fileDocument({}, file("x", "bell\u0007.md"), NO_PDF, "acct_1")).name).toBe("bell.md");
    expect((await fileDocument({}, file("x", `${"é".repeat(300)}.md`), NO_PDF, "acct_1")).name).toBe("é".repeat(200));
    expect((await fileDocument({ format: "text" }, file("x"), NO_PDF, "acct_1")).name).toBe("document");
    expect((await fileDocument({ name: "Menu" }, file("x", "m.md"), NO_PDF, "acct_1")).name).toBe("Menu");
  });

  it("is the same request for the same fields and bytes, another for other bytes", async () => {
    const one = await fileDocument({ name: "a" }, file("one", "a.txt"), NO_PDF, "acct_1");
    const again = await fileDocument({ name: "a" }, file("one", "b.txt"), NO_PDF, "acct_1");
    const other = await fileDocument({ name: "a" }, file("two", "a.txt"), NO_PDF, "acct_1");
    expect(again.fingerprintOf).toEqual(one.fingerprintOf);
    expect(other.fingerprintOf).not.toEqual(one.fingerprintOf);
    expect(one.sizeBytes).toBe(3);
  });

  it("refuses text that is not UTF-8, and a format nobody can tell, naming the part", async () => {
    const latin1 = await refusal(
      fileDocument({}, { bytes: Buffer.from([0x63, 0x61, 0x66, 0xe9]), filename: "a.txt", contentType: undefined }, NO_PDF, "acct_1"),
    );
    expect(latin1.detail).toEqual([expect.objectContaining({ path: "file", message: expect.stringMatching(/UTF-8/) })]);
    const unknown = await refusal(fileDocument({}, file("x", "a.docx", "application/msword"), NO_PDF, "acct_1"));
    expect(unknown.detail).toEqual([
      expect.objectContaining({ path: "format", message: expect.stringMatching(/application\/msword.*a\.docx/) }),
    ]);
  });

  it("refuses a file of text over 1 MiB, as a JSON create's content, before anything is read of it", async () => {
    const big = { bytes: new Uint8Array(MAX_CONTENT_BYTES + 1).fill(0x61), filename: "big.txt", contentType: "text/plain" };
    const error = await refusal(fileDocument({}, big, NO_PDF, "acct_1"));
    expect(error.code).toBe("payload_too_large");
    expect(error.detail).toMatch(/is 1048577 bytes of text; a document's text is at most 1048576 bytes/);
    const fits = { ...big, bytes: big.bytes.subarray(0, MAX_CONTENT_BYTES) };
    expect((await fileDocument({}, fits, NO_PDF, "acct_1")).sizeBytes).toBe(MAX_CONTENT_BYTES);
  });

  it("refuses a file over 10 MiB before reading it", async () => {
    const reader = pdfReader({ kind: "text", text: "x", pages: 1 });
    const error = await refusal(
      fileDocument(
        { format: "pdf" },
        { bytes: new Uint8Array(MAX_FILE_BYTES + 1), filename: undefined, contentType: undefined },
        reader,
        "acct_1",
      ),
    );
    expect(error.code).toBe("payload_too_large");
    expect(reader.reads).toBe(0);
  });
});

describe("a PDF's document", () => {
  it("is the text its pages hold", async () => {
    const made = await fileDocument({}, file("%PDF-", "p.pdf"), pdfReader({ kind: "text", text: "Open at 9.", pages: 2 }), "acct_1");
    expect(made).toMatchObject({ format: "pdf", content: "Open at 9.", name: "p.pdf" });
  });

  it.each([
    ["broken", /not a PDF that can be read/],
    ["password", /password/],
    ["pages", /has 900 pages; at most 500/],
    ["text", /more text/],
    ["no_text", /no text.*OCR/],
    ["limits", /within 20 seconds/],
  ] as [PdfRefusal, RegExp][])("refused as %s is 422 naming file", async (reason, message) => {
    const error = await refusal(fileDocument({}, file("%PDF-", "p.pdf"), pdfReader({ kind: "refused", reason, pages: 900 }), "acct_1"));
    expect(error.code).toBe("validation_failed");
    expect(error.detail).toEqual([{ location: "body", path: "file", message: expect.stringMatching(message) }]);
  });

  it("is 503 with Retry-After when the replica reads as many PDFs as it may", async () => {
    const error = await refusal(fileDocument({}, file("%PDF-", "p.pdf"), pdfReader({ kind: "busy" }), "acct_1"));
    expect(error.code).toBe("service_unavailable");
    expect(error.retryAfterSeconds).toBe(5);
  });
});
