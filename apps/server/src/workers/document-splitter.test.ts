import { describe, expect, it } from "vitest";
import { processDocument } from "../domain/knowledge/document-processing.js";
import { DocumentSplitter } from "./document-splitter.js";

const MARKDOWN = "# Harbour Hotel\n\n## Breakfast\n\nBreakfast is served from seven.\n\n## Parking\n\nThe garage has 40 places.";

describe("splitting documents off the thread that answers requests", () => {
  it("answers what processDocument answers, one document after another, in one thread it keeps", async () => {
    const splitter = new DocumentSplitter({ timeoutMs: 20_000, heapMb: 256 });
    try {
      const [a, b, empty] = await Promise.all([
        splitter.split("markdown", MARKDOWN),
        splitter.split("text", "Check-out is until eleven."),
        splitter.split("html", "<p> </p>"),
      ]);
      expect(a).toEqual(processDocument("markdown", MARKDOWN));
      expect(b).toEqual({ kind: "ready", chunks: [{ index: 0, text: "Check-out is until eleven." }] });
      expect(empty).toEqual({ kind: "failed", error: "The document has no text once its markup is removed." });
    } finally {
      await splitter.close();
    }
  });

  it("fails a document beyond its thread's memory or time, and splits the next one in a new thread", async () => {
    const splitter = new DocumentSplitter({ timeoutMs: 20_000, heapMb: 16 });
    try {
      const big = "A sentence about rooms and their views over the harbour.\n\n".repeat(150_000);
      expect(await splitter.split("text", big)).toEqual({
        kind: "failed",
        error: "The document could not be split into passages within the memory it may take.",
      });
      expect(await splitter.split("text", "Open at nine.")).toEqual({ kind: "ready", chunks: [{ index: 0, text: "Open at nine." }] });
    } finally {
      await splitter.close();
    }
    const hurried = new DocumentSplitter({ timeoutMs: 1, heapMb: 256 });
    try {
      expect(await hurried.split("text", "Open at nine.")).toEqual({
        kind: "failed",
        error: "The document could not be split into passages within 0 s; split it into smaller documents.",
      });
    } finally {
      await hurried.close();
    }
  });
});
