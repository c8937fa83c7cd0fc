/**
 * PDF files for tests, written from scratch: pages of lines in Helvetica at the sizes a test asks for,
 * or pages with only a drawing (no text, as a scan has), with a correct cross-reference table, so
 * a reader finds them as it finds any PDF. Tests of the document upload make the PDFs they read, rather
 * than keeping binary fixtures nobody can review. pdfBomb is a hostile one: a page whose content inflates
 * to far more than the file, as a decompression bomb does.
 */
import { deflateSync } from "node:zlib";

/** One line of a page: its text (Latin-1) and its size in points (12 by default). */
export interface PdfLine {
  text: string;
  size?: number;
  /** Space before the line in points; more than the line's size sets a paragraph apart. */
  gap?: number;
}

/** A page: its lines top to bottom, or a drawing only (`"drawing"`: a filled rectangle, no text). */
export type PdfPage = readonly PdfLine[] | "drawing";

/** A PDF of these pages (A4), as bytes. */
export function pdfFile(pages: readonly PdfPage[]): Buffer {
  return assembled(pages.map((page) => ({ stream: Buffer.from(page === "drawing" ? DRAWING : textStream(page), "latin1") })));
}

/**
 * A one-page PDF whose content stream is a line of text and then `inflatedBytes` of spaces, deflated
 * `layers` times (`/Filter [/FlateDecode /FlateDecode]` for two): a few KiB that a reader inflates to
 * `inflatedBytes`.
 */
export function pdfBomb(inflatedBytes: number, layers = 2): Buffer {
  let stream: Buffer = Buffer.concat([Buffer.from("BT /F1 12 Tf 72 700 Td (Boom) Tj ET\n", "latin1"), Buffer.alloc(inflatedBytes, 0x20)]);
  for (let i = 0; i < layers; i++) stream = deflateSync(stream, { level: 9 });
  return assembled([{ stream, filter: `[${Array.from({ length: layers }, () => "/FlateDecode").join(" ")}]` }]);
}

const DRAWING = "0.2 0.4 0.6 rg 72 400 300 200 re f";

function assembled(pages: readonly { stream: Buffer; filter?: string }[]): Buffer {
  const objects: (string | Buffer)[] = [];
  const add = (body: string | Buffer): number => objects.push(body);
  const catalog = add("");
  const pageTree = add("");
  const font = add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>");
  const kids: number[] = [];
  for (const { stream, filter } of pages) {
    const head = `<< /Length ${stream.length}${filter ? ` /Filter ${filter}` : ""} >>\nstream\n`;
    const contents = add(Buffer.concat([Buffer.from(head, "latin1"), stream, Buffer.from("\nendstream", "latin1")]));
    kids.push(
      add(
        `<< /Type /Page /Parent ${pageTree} 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 ${font} 0 R >> >> /Contents ${contents} 0 R >>`,
      ),
    );
  }
  objects[catalog - 1] = `<< /Type /Catalog /Pages ${pageTree} 0 R >>`;
  objects[pageTree - 1] = `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(" ")}] /Count ${kids.length} >>`;

  const parts: Buffer[] = [Buffer.from("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n", "latin1")];
  let length = parts[0]?.length ?? 0;
  const push = (part: Buffer) => {
    parts.push(part);
    length += part.length;
  };
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(length);
    push(
      Buffer.concat([
        Buffer.from(`${i + 1} 0 obj\n`, "latin1"),
        typeof body === "string" ? Buffer.from(body, "latin1") : body,
        Buffer.from("\nendobj\n", "latin1"),
      ]),
    );
  });
  let tail = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) tail += `${String(offset).padStart(10, "0")} 00000 n \n`;
  tail += `trailer\n<< /Size ${objects.length + 1} /Root ${catalog} 0 R >>\nstartxref\n${length}\n%%EOF\n`;
  push(Buffer.from(tail, "latin1"));
  return Buffer.concat(parts);
}

function textStream(lines: readonly PdfLine[]): string {
  let y = 800;
  const ops: string[] = [];
  for (const line of lines) {
    const size = line.size ?? 12;
    y -= (line.gap ?? 0) + size * 1.2;
    ops.push(`BT /F1 ${size} Tf 72 ${y.toFixed(1)} Td (${escaped(line.text)}) Tj ET`);
  }
  return ops.join("\n");
}

function escaped(text: string): string {
  return text.replace(/[\\()]/g, (c) => `\\${c}`);
}
