/**
 * Runs in a worker thread that pdf-text-reader.ts starts for one PDF: reads its text with Mozilla's
 * PDF.js and posts it back. A thread of its own, with a heap limit of its own, because the PDF is a
 * customer's: a hostile one can make a parser loop or allocate without end, and this thread is then
 * terminated while the server goes on.
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { parentPort, workerData } from "node:worker_threads";
import { getDocument } from "pdfjs-dist/legacy/build/pdf.mjs";
// PDF.js's own worker code, in this thread (PDF.js looks for it on globalThis before importing it itself).
// @ts-expect-error: PDF.js ships no types for its worker module.
import * as pdfjsWorker from "pdfjs-dist/legacy/build/pdf.worker.mjs";
import type { PdfTextResult } from "../domain/knowledge/ports.js";
import { linesToText, type PositionedText } from "./pdf-lines.js";
import type { PdfTextJob } from "./pdf-text-job.js";

(globalThis as { pdfjsWorker?: unknown }).pdfjsWorker = pdfjsWorker;
const job = workerData as PdfTextJob;
// Standard fonts that a PDF names without embedding them: read from the package, never fetched.
const standardFontDataUrl = `${join(dirname(createRequire(import.meta.url).resolve("pdfjs-dist/package.json")), "standard_fonts")}/`;

async function read(): Promise<PdfTextResult> {
  const task = getDocument({
    data: job.bytes,
    standardFontDataUrl,
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    verbosity: 0,
  });
  let pdf: Awaited<typeof task.promise>;
  try {
    pdf = await task.promise;
  } catch (error) {
    const name = (error as { name?: string }).name;
    return { kind: "refused", reason: name === "PasswordException" ? "password" : "broken" };
  }
  try {
    if (pdf.numPages > job.maxPages) return { kind: "refused", reason: "pages", pages: pdf.numPages };
    const pages: string[] = [];
    let characters = 0;
    for (let number = 1; number <= pdf.numPages; number++) {
      const page = await pdf.getPage(number);
      const content = await page.getTextContent();
      const items: PositionedText[] = [];
      for (const item of content.items) {
        if (!("str" in item)) continue;
        items.push({ text: item.str, y: item.transform[5] ?? 0, size: Math.abs(item.transform[3] ?? item.height), endsLine: item.hasEOL });
      }
      const text = linesToText(items);
      page.cleanup();
      characters += text.length;
      if (characters > job.maxCharacters) return { kind: "refused", reason: "text" };
      if (text !== "") pages.push(text);
    }
    if (pages.length === 0) return { kind: "refused", reason: "no_text", pages: pdf.numPages };
    return { kind: "text", text: pages.join("\n\n"), pages: pdf.numPages };
  } catch {
    return { kind: "refused", reason: "broken" };
  } finally {
    await task.destroy();
  }
}

read().then(
  (result) => parentPort?.postMessage(result),
  () => parentPort?.postMessage({ kind: "refused", reason: "broken" } satisfies PdfTextResult),
);
