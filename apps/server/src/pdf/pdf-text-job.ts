/** What pdf-text-reader.ts hands the process it starts (pdf-text-process.ts) for one PDF. */
export interface PdfTextJob {
  bytes: Uint8Array;
  /** A PDF with more pages is refused unread. */
  maxPages: number;
  /** A PDF whose text runs longer is refused (its pages are not kept in part). */
  maxCharacters: number;
  /** The process's memory bound (MiB). */
  memoryMb: number;
  /** The share of it past which a reading's peak is refused (PDF_LIMITS says why). */
  peakShare: number;
}
