/**
 * PDF files for tests, written from scratch: pages of lines in Helvetica at the sizes a test asks for,
 * or pages with only a drawing (no text, as a scan has), with a correct cross-reference table, so
 * a reader finds them as it finds any PDF. Tests of the document upload make the PDFs they read, rather
 * than keeping binary fixtures nobody can review.
 */

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
  const objects: string[] = [];
  const add = (body: string): number => objects.push(body);
  const catalog = add("");
  const pageTree = add("");
  const font = add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>");
  const kids: number[] = [];
  for (const page of pages) {
    const stream = page === "drawing" ? "0.2 0.4 0.6 rg 72 400 300 200 re f" : textStream(page);
    const contents = add(`<< /Length ${Buffer.byteLength(stream, "latin1")} >>\nstream\n${stream}\nendstream`);
    kids.push(
      add(
        `<< /Type /Page /Parent ${pageTree} 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 ${font} 0 R >> >> /Contents ${contents} 0 R >>`,
      ),
    );
  }
  objects[catalog - 1] = `<< /Type /Catalog /Pages ${pageTree} 0 R >>`;
  objects[pageTree - 1] = `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(" ")}] /Count ${kids.length} >>`;

  let out = "%PDF-1.4\n%\xe2\xe3\xcf\xd3\n";
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out, "latin1"));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, "latin1");
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) out += `${String(offset).padStart(10, "0")} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root ${catalog} 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, "latin1");
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
