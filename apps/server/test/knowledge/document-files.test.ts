/**
 * Documents sent as files (createDocument's multipart/form-data, contract guide "Knowledge", "Files"):
 * a PDF the test makes is read for its text and searched like any document; Markdown, HTML and text
 * files are told by their Content-Type or their name; what cannot be read (a broken PDF, one with no
 * text or too many pages, a file that is not UTF-8, a format nobody can tell, a part the contract does
 * not name, a file over 10 MiB) is a 4xx naming the part, with nothing stored; a file is one
 * create per Idempotency-Key like JSON. Runs on memory and on Redis with PostgreSQL.
 */
import { randomUUID } from "node:crypto";
import { pdfBomb, pdfFile } from "@dhs/testkit";
import { describe, expect, it } from "vitest";
import { type Doc, settledDocument } from "../support/documents.js";
import { DIGITAL_HUMANS, expectApiError, expectData, KEYS, useHarness } from "../support/harness.js";

const h = useHarness({ SWEEP_INTERVAL_MS: "100" });
const [AVA] = DIGITAL_HUMANS;

const PRICE_LIST = pdfFile([
  [
    { text: "Harbour Hotel", size: 22 },
    { text: "Breakfast is served from 7:00 to 10:30 in the Garden Room,", gap: 12 },
    { text: "and on weekends until 11:00." },
    { text: "The garage under the hotel has 40 places at 25 euros a night.", gap: 14 },
  ],
  "drawing",
  [{ text: "The spa on the top floor opens at 9:00 and closes at 21:00." }],
]);

/** Sends a multipart createDocument: `parts` as the form has them (a Blob with a name is a file). */
function upload(
  parts: [string, string | { data: Uint8Array; filename: string; type?: string }][],
  init: { key?: string; idempotencyKey?: string } = {},
) {
  const form = new FormData();
  for (const [name, value] of parts) {
    if (typeof value === "string") form.append(name, value);
    else form.append(name, new Blob([value.data as Uint8Array<ArrayBuffer>], { type: value.type ?? "" }), value.filename);
  }
  return fetch(`${h.url}/v1/documents`, {
    method: "POST",
    headers: { Authorization: `Bearer ${init.key ?? KEYS.aKnowledge}`, "Idempotency-Key": init.idempotencyKey ?? randomUUID() },
    body: form,
  });
}

const settled = (id: string, key: string = KEYS.aKnowledge): Promise<Doc> => settledDocument(h.client(key), id);

async function documentCount(key: string = KEYS.aKnowledge): Promise<number> {
  return expectData(await h.client(key).listDocuments({ limit: 100 })).data.length;
}

describe("a file", () => {
  it("a PDF is read for the text of its pages, named after its file, and searched like any document", async () => {
    const made = expectData(
      await h
        .client(KEYS.aKnowledge)
        .createDocument({ file: { data: PRICE_LIST, filename: "uploads/price-list.pdf", contentType: "application/pdf" } }),
      201,
    ) as Doc;
    expect(made).toMatchObject({ name: "price-list.pdf", format: "pdf", status: "processing", size_bytes: PRICE_LIST.length });
    const ready = await settled(made.id);
    expect(ready).toMatchObject({ status: "ready", error: null });
    expect(ready.chunks).toBeGreaterThanOrEqual(1);

    const maya = expectData(
      await h.client(KEYS.aPersonas).createDigitalHuman({ name: "Maya", appearance: AVA.id, knowledge: { document_ids: [made.id] } }),
      201,
    );
    const found = expectData(await h.client(KEYS.aKnowledge).searchKnowledge(maya.id, { query: "When are breakfasts served?" }));
    expect(found.results[0]?.text).toContain("Breakfast is served from 7:00 to 10:30 in the Garden Room");
    const spa = expectData(await h.client(KEYS.aKnowledge).searchKnowledge(maya.id, { query: "When does the spa close?" }));
    expect(spa.results[0]?.text).toContain("closes at 21:00");
  });

  it("Markdown, HTML and text are told by the part's Content-Type, else by the name's extension; format says so over both", async () => {
    const markdown = Buffer.from("# Parking\nThe garage has 40 places.\n");
    const byName = (await (
      await upload([["file", { data: markdown, filename: "faq.md", type: "application/octet-stream" }]])
    ).json()) as Doc;
    expect(byName).toMatchObject({ format: "markdown", name: "faq.md" });
    const byType = (await (
      await upload([["file", { data: Buffer.from("<h1>Spa</h1><p>Open at 9.</p>"), filename: "spa", type: "text/html; charset=utf-8" }]])
    ).json()) as Doc;
    expect(byType.format).toBe("html");
    const said = (await (
      await upload([
        ["file", { data: markdown, filename: "faq.html", type: "text/html" }],
        ["format", "text"],
        ["name", "FAQ"],
      ])
    ).json()) as Doc;
    expect(said).toMatchObject({ format: "text", name: "FAQ" });
    for (const doc of [byName, byType, said]) expect((await settled(doc.id)).status).toBe("ready");
  });

  it("is one create per Idempotency-Key: the same file and fields replay it, another file is 409", async () => {
    const key = randomUUID();
    const file = { data: Buffer.from("Check-out is until 11:00."), filename: "rules.txt" };
    const first = await upload([["file", file]], { idempotencyKey: key });
    expect(first.status).toBe(201);
    const again = await upload([["file", file]], { idempotencyKey: key });
    expect(again.status).toBe(201);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(((await again.json()) as Doc).id).toBe(((await first.json()) as Doc).id);
    await expectApiError(
      await upload([["file", { ...file, data: Buffer.from("Check-out is until 12:00.") }]], { idempotencyKey: key }),
      409,
      "idempotency_key_reused",
    );
  });
});

describe("a file that cannot be taken", () => {
  const refusals: [string, Parameters<typeof upload>[0], string, RegExp][] = [
    ["a PDF with no text (a scan)", [["file", { data: pdfFile(["drawing", "drawing"]), filename: "scan.pdf" }]], "file", /no text.*OCR/],
    ["a broken PDF", [["file", { data: PRICE_LIST.subarray(0, 200), filename: "cut.pdf" }]], "file", /can be read|broken/],
    [
      "bytes that are not a PDF, said to be one",
      [
        ["file", { data: Buffer.from("hello"), filename: "a.txt" }],
        ["format", "pdf"],
      ],
      "file",
      /broken|not a PDF/,
    ],
    [
      "a PDF of 501 pages",
      [["file", { data: pdfFile(Array.from({ length: 501 }, () => [{ text: "x" }])), filename: "long.pdf" }]],
      "file",
      /501 pages/,
    ],
    ["text that is not UTF-8", [["file", { data: Buffer.from([0x48, 0xe9, 0x6c, 0x6c, 0x6f]), filename: "latin1.txt" }]], "file", /UTF-8/],
    [
      "text with control characters",
      [["file", { data: Buffer.from("Open\u0007 at 9."), filename: "bell.txt" }]],
      "file",
      /control characters/,
    ],
    ["white space only", [["file", { data: Buffer.from(" \n\t "), filename: "blank.md" }]], "file", /some text/],
    [
      "a format nobody can tell",
      [["file", { data: Buffer.from("Open at 9."), filename: "notes.docx", type: "application/octet-stream" }]],
      "format",
      /could not be told/,
    ],
    [
      "a file part under another name",
      [
        ["file", { data: Buffer.from("a"), filename: "a.txt" }],
        ["attachment", { data: Buffer.from("b"), filename: "b.txt" }],
      ],
      "attachment",
      /./,
    ],
    [
      "a part the contract does not name",
      [
        ["file", { data: Buffer.from("a"), filename: "a.txt" }],
        ["colour", "blue"],
      ],
      "colour",
      /./,
    ],
    [
      "two files",
      [
        ["file", { data: Buffer.from("a"), filename: "a.txt" }],
        ["file", { data: Buffer.from("b"), filename: "b.txt" }],
      ],
      "file",
      /once/,
    ],
    ["file as a text part", [["file", "Open at 9."]], "file", /file part/],
    ["no file", [["name", "Nothing"]], "file", /./],
    [
      "a language nobody indexes",
      [
        ["file", { data: Buffer.from("Open."), filename: "a.txt" }],
        ["language", "tlh"],
      ],
      "language",
      /language/,
    ],
  ];
  it.each(refusals)("%s is 422 naming the part, and nothing is stored", async (_what, parts, path, message) => {
    const before = await documentCount();
    const error = await expectApiError(await upload(parts), 422, "validation_failed");
    const issue = (error.detail as { path: string; message: string }[]).find((i) => i.path === path || i.path.endsWith(`/${path}`));
    expect(issue, JSON.stringify(error.detail)).toBeDefined();
    expect(issue?.message).toMatch(message);
    expect(await documentCount()).toBe(before);
  });

  it("a file over 10 MiB is 413; a PDF of 10 MiB is taken", async () => {
    const limit = 10 * 1024 * 1024;
    await expectApiError(await upload([["file", { data: Buffer.alloc(limit + 1, "a"), filename: "big.pdf" }]]), 413, "payload_too_large");
    // A page whose content stream, uncompressed, fills the file to its bound.
    const overhead = pdfBomb(limit - 1000, 0).length - (limit - 1000);
    const taken = await upload([["file", { data: pdfBomb(limit - overhead, 0), filename: "big.pdf" }]]);
    expect(taken.status, await taken.clone().text()).toBe(201);
    expect(((await taken.json()) as Doc).size_bytes).toBe(limit);
  });

  it("a file of text, Markdown or HTML over 1 MiB is 413 at once, as JSON content is; one of 1 MiB is taken", async () => {
    const limit = 1024 * 1024;
    const error = await expectApiError(
      await upload([["file", { data: Buffer.alloc(10 * limit, "a"), filename: "big.txt" }]]),
      413,
      "payload_too_large",
    );
    expect(error.detail).toBe(
      "The file is 10485760 bytes of text; a document's text is at most 1048576 bytes (a PDF file, at most 10485760).",
    );
    const taken = await upload([["file", { data: Buffer.alloc(limit, "a"), filename: "big.md" }]]);
    expect(taken.status).toBe(201);
  });

  it("a PDF that inflates to more than a PDF may (1.2 KiB to 256 MiB) is 422 naming the file, and nothing is stored", async () => {
    const before = await documentCount();
    const error = await expectApiError(
      await upload([["file", { data: pdfBomb(256 << 20), filename: "bomb.pdf" }]]),
      422,
      "validation_failed",
    );
    expect(error.detail).toEqual([{ location: "body", path: "file", message: expect.stringMatching(/memory a PDF may take/) }]);
    expect(await documentCount()).toBe(before);
  });

  it("one account's flood of PDFs holds up neither another account's PDF nor tells it to come back", async () => {
    const one = () => pdfFile([[{ text: `Room ${randomUUID().slice(0, 4)} has a sea view.` }]]);
    const flood = Array.from({ length: 12 }, () => upload([["file", { data: one(), filename: "a.pdf" }]]));
    const finished: string[] = [];
    const noted = (who: string) => (res: Response) => {
      finished.push(who === "a" ? `a${res.status}` : who);
      return res;
    };
    const mine = upload([["file", { data: one(), filename: "b.pdf" }]], { key: KEYS.bKnowledge }).then(noted("b"));
    const floods = flood.map((p) => p.then(noted("a")));
    const answer = await mine;
    expect(answer.status, await answer.clone().text()).toBe(201);
    const statuses = (await Promise.all(floods)).map((res) => res.status);
    // Account A's own queue holds 4 beside the 2 being read; the rest of its PDFs are told to come back.
    expect(statuses.filter((s) => s === 503).length).toBeGreaterThan(0);
    expect(statuses.filter((s) => s !== 201 && s !== 503)).toEqual([]);
    // B's one PDF took its turn before the last of A's queue.
    expect(finished.lastIndexOf("a201")).toBeGreaterThan(finished.indexOf("b"));
  });

  it("a body that is not well-formed multipart is 422; without the scope 403 before it is read", async () => {
    const malformed = await fetch(`${h.url}/v1/documents`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${KEYS.aKnowledge}`,
        "Idempotency-Key": randomUUID(),
        "Content-Type": "multipart/form-data; boundary=xyz",
      },
      body: '--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nno end',
    });
    await expectApiError(malformed, 422, "validation_failed");
    await expectApiError(await upload([["file", { data: PRICE_LIST, filename: "p.pdf" }]], { key: KEYS.aKnowledgeRead }), 403, "forbidden");
  });
});
