/**
 * Runs as a process of its own that pdf-text-reader.ts starts for one PDF, with an operating-system bound
 * on its memory (RLIMIT_DATA, which it sets on itself: memory-bound.ts), a heap bound and a deadline:
 * reads the PDF's text with Mozilla's PDF.js and sends it back over the IPC channel. A process rather than
 * a thread, because the PDF is a customer's: a thread's heap limit does not bound the buffers a parser
 * inflates streams into (a 1.2 KiB decompression bomb grew the service by 683 MiB), and what would exhaust
 * the memory here fails an allocation in this process, or ends it, while the server goes on.
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { getDocument } from "pdfjs-dist/legacy/build/pdf.mjs";
// PDF.js's own worker code, in this process (PDF.js looks for it on globalThis before importing it itself).
// @ts-expect-error: PDF.js ships no types for its worker module.
import * as pdfjsWorker from "pdfjs-dist/legacy/build/pdf.worker.mjs";
import type { PdfTextResult } from "../domain/knowledge/ports.js";
import { boundOwnMemory, ownStatusKb } from "./memory-bound.js";
import { linesToText, type PositionedText } from "./pdf-lines.js";
import type { PdfTextJob } from "./pdf-text-job.js";

(globalThis as { pdfjsWorker?: unknown }).pdfjsWorker = pdfjsWorker;
/**
 * PDF.js does not fail where an allocation did: it warns ("ignoring errors during GetTextContent:
 * RangeError: Array buffer allocation failed") and reads on without the stream it could not inflate, so a
 * bomb reads as a page with no text. Its warnings come here (this process's console is nobody's), and one
 * that names a RangeError, an allocation the bound refused or a stack exhausted, refuses the reading.
 */
let exhausted = false;
console.warn = (...parts: unknown[]) => {
  if (parts.some((part) => typeof part === "string" && /RangeError|allocation failed/.test(part))) exhausted = true;
};
// Standard fonts that a PDF names without embedding them: read from the package, never fetched.
const standardFontDataUrl = `${join(dirname(createRequire(import.meta.url).resolve("pdfjs-dist/package.json")), "standard_fonts")}/`;

async function read(job: PdfTextJob): Promise<PdfTextResult> {
  const task = getDocument({
    // The channel hands a Buffer over as a Buffer, which PDF.js refuses: a plain view of the same bytes.
    data: new Uint8Array(job.bytes.buffer, job.bytes.byteOffset, job.bytes.byteLength),
    standardFontDataUrl,
    disableFontFace: true,
    useSystemFonts: false,
    // Warnings, for the allocation failures they name (above).
    verbosity: 1,
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

/**
 * A reading in which an allocation failed, or that came near the memory bound, is refused whatever it
 * found: the file holds more than a PDF may inflate to, and what was read of it may be missing its largest
 * part. The peak alone was not enough: a 256 MiB bomb peaked at 431 MiB here and under 410 on a CI machine,
 * where only the failed allocation told. The peak is this process's own (VmHWM: getrusage's maxrss starts
 * at the forking parent's), read from /proc, which the bound needs too (memory-bound.ts).
 */
function withinMemory(result: PdfTextResult, job: PdfTextJob): PdfTextResult {
  if (exhausted) return { kind: "refused", reason: "limits" };
  const peakKb = ownStatusKb("VmHWM") ?? 0;
  return peakKb / 1024 > job.memoryMb * job.peakShare ? { kind: "refused", reason: "limits" } : result;
}

// One job, one answer; the reader kills this process once it has the answer, and a reader gone (its
// channel closed) ends it too.
process.once("message", (job: PdfTextJob) => {
  if (!boundOwnMemory(job.memoryMb)) {
    process.send?.({ kind: "refused", reason: "limits" } satisfies PdfTextResult);
    return;
  }
  read(job).then(
    (result) => process.send?.(withinMemory(result, job)),
    () => process.send?.({ kind: "refused", reason: "broken" } satisfies PdfTextResult),
  );
});
process.once("disconnect", () => process.exit(0));
