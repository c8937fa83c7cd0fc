/**
 * What processing a document comes to: its passages, or why it has none. Never throws: whatever the
 * input, the document ends `ready` or `failed` with a reason a customer can act on.
 */
import type { DocumentFormat } from "@dhs/contract";
import { chunksOf } from "./chunker.js";
import { sectionsOf } from "./document-text.js";
import type { ProcessingOutcome } from "./ports.js";

/** The most passages one document makes (1 MiB of dense text makes about 1 500). */
export const MAX_CHUNKS = 5000;

export function processDocument(format: DocumentFormat, content: string): ProcessingOutcome {
  try {
    const chunks = chunksOf(sectionsOf(format, content));
    if (chunks.length === 0)
      return {
        kind: "failed",
        error:
          format === "markdown" || format === "html" ? "The document has no text once its markup is removed." : "The document has no text.",
      };
    if (chunks.length > MAX_CHUNKS)
      return { kind: "failed", error: `The document makes more than ${MAX_CHUNKS} passages; split it into smaller documents.` };
    return { kind: "ready", chunks };
  } catch {
    return { kind: "failed", error: "The document could not be read." };
  }
}
