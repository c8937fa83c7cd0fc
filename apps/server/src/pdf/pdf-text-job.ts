/** What pdf-text-reader.ts hands the worker thread it starts (pdf-text-worker.ts) for one PDF. */
export interface PdfTextJob {
  bytes: Uint8Array;
  /** A PDF with more pages is refused unread. */
  maxPages: number;
  /** A PDF whose text runs longer is refused (its pages are not kept in part). */
  maxCharacters: number;
}
