import { pdfFile } from "@dhs/testkit";
import { describe, expect, it } from "vitest";
import { PDF_LIMITS, PdfTextReader } from "./pdf-text-reader.js";

const ONE_PAGE = pdfFile([[{ text: "Check-out is until 11:00." }]]);

describe("reading a PDF's text in a worker thread", () => {
  it("answers the text of its pages and their number, a page without text left out", async () => {
    const reading = await new PdfTextReader().read(pdfFile([[{ text: "Page (one)." }], "drawing", [{ text: "Page three." }]]));
    expect(reading).toEqual({ kind: "text", text: "Page (one).\n\nPage three.", pages: 3 });
  });

  it("refuses a PDF beyond its pages or its text unread, rather than in part", async () => {
    const pages = await new PdfTextReader({ ...PDF_LIMITS, maxPages: 2 }).read(
      pdfFile([[{ text: "a" }], [{ text: "b" }], [{ text: "c" }]]),
    );
    expect(pages).toEqual({ kind: "refused", reason: "pages", pages: 3 });
    expect(await new PdfTextReader({ ...PDF_LIMITS, maxCharacters: 10 }).read(ONE_PAGE)).toEqual({ kind: "refused", reason: "text" });
  });

  it("stops a PDF that takes longer than its time (the thread is terminated)", async () => {
    expect(await new PdfTextReader({ ...PDF_LIMITS, timeoutMs: 1 }).read(ONE_PAGE)).toEqual({ kind: "refused", reason: "limits" });
  });

  it("reads a few at once and tells the rest beyond its queue to come back", async () => {
    const reader = new PdfTextReader({ ...PDF_LIMITS, concurrency: 1, maxWaiting: 1 });
    const readings = await Promise.all([reader.read(ONE_PAGE), reader.read(ONE_PAGE), reader.read(ONE_PAGE)]);
    expect(readings.map((r) => r.kind)).toEqual(["text", "text", "busy"]);
    // The queue empties as readings end: a later one is read again.
    expect((await reader.read(ONE_PAGE)).kind).toBe("text");
  });
});
