import { pdfBomb, pdfFile } from "@dhs/testkit";
import { describe, expect, it } from "vitest";
import { PDF_LIMITS, PdfTextReader } from "./pdf-text-reader.js";

const ONE_PAGE = pdfFile([[{ text: "Check-out is until 11:00." }]]);

describe("reading a PDF's text in a process of its own", () => {
  it("answers the text of its pages and their number, a page without text left out", async () => {
    const reading = await new PdfTextReader().read(pdfFile([[{ text: "Page (one)." }], "drawing", [{ text: "Page three." }]]), "acct_a");
    expect(reading).toEqual({ kind: "text", text: "Page (one).\n\nPage three.", pages: 3 });
  });

  it("refuses a PDF beyond its pages or its text unread, rather than in part", async () => {
    const pages = await new PdfTextReader({ ...PDF_LIMITS, maxPages: 2 }).read(
      pdfFile([[{ text: "a" }], [{ text: "b" }], [{ text: "c" }]]),
      "acct_a",
    );
    expect(pages).toEqual({ kind: "refused", reason: "pages", pages: 3 });
    expect(await new PdfTextReader({ ...PDF_LIMITS, maxCharacters: 10 }).read(ONE_PAGE, "acct_a")).toEqual({
      kind: "refused",
      reason: "text",
    });
  });

  it("stops a PDF that takes longer than its time (the process is killed)", async () => {
    expect(await new PdfTextReader({ ...PDF_LIMITS, timeoutMs: 1 }).read(ONE_PAGE, "acct_a")).toEqual({
      kind: "refused",
      reason: "limits",
    });
  });

  it("refuses a decompression bomb within the process's memory bound: 1.2 KiB that inflate to 256 MiB", async () => {
    const reader = new PdfTextReader();
    const bomb = pdfBomb(256 << 20);
    const before = process.memoryUsage().rss;
    expect(await reader.read(bomb, "acct_a")).toEqual({ kind: "refused", reason: "limits" });
    const grew = (process.memoryUsage().rss - before) / 1048576;
    console.log(`a ${bomb.length}-byte PDF inflating to 256 MiB: refused, this process grew ${grew.toFixed(0)} MiB`);
    // What a PDF may legitimately inflate to is still read.
    expect(await reader.read(pdfBomb(16 << 20), "acct_a")).toEqual({ kind: "text", text: "Boom", pages: 1 });
  });

  it("refuses a bomb whose inflating failed an allocation even when its peak stayed below the share it is held to", async () => {
    // PDF.js swallows the failed allocation and reads on, to a page with no text; on a CI machine the peak
    // stayed under 80% of the bound, so the failure itself must refuse it.
    const reader = new PdfTextReader({ ...PDF_LIMITS, peakShare: 1 });
    expect(await reader.read(pdfBomb(256 << 20), "acct_a")).toEqual({ kind: "refused", reason: "limits" });
  });

  it("reads a few at once, the accounts taking turns; one account's queue full is that account's busy alone", async () => {
    const reader = new PdfTextReader({ ...PDF_LIMITS, concurrency: 1, maxWaiting: 3 });
    const order: string[] = [];
    const read = (name: string) =>
      reader.read(ONE_PAGE, name.slice(0, 1)).then((r) => {
        if (r.kind === "text") order.push(name);
        return r.kind;
      });
    // a1 is read at once and a2-a4 wait; a5 finds a's queue full; b1 comes last and is not held behind all of a's.
    const readings = await Promise.all(["a1", "a2", "a3", "a4", "a5", "b1"].map(read));
    expect(readings).toEqual(["text", "text", "text", "text", "busy", "text"]);
    expect(order).toEqual(["a1", "a2", "b1", "a3", "a4"]);
    expect(await read("a6")).toBe("text");
  });
});
