/**
 * On Redis without PostgreSQL the deployment keeps no knowledge: every document operation and
 * searchKnowledge answer 501 knowledge_not_configured naming DATABASE_URL (after authentication and
 * scopes, as any operation), and a digital human's document ids are refused as no documents.
 */
import { pdfFile } from "@dhs/testkit";
import { describe, expect, it } from "vitest";
import { DIGITAL_HUMANS, expectApiError, KEYS, useHarness } from "../support/harness.js";

const h = useHarness();
const DOC = `doc_${"0a".repeat(12)}`;

describe("knowledge on Redis without DATABASE_URL", () => {
  it.each([
    ["createDocument", () => h.client(KEYS.aKnowledge).createDocument({ name: "x", format: "text", content: "ok" })],
    [
      "createDocument with a file (before its PDF is read)",
      () => h.client(KEYS.aKnowledge).createDocument({ file: { data: pdfFile([[{ text: "Open at 9." }]]), filename: "hours.pdf" } }),
    ],
    ["listDocuments", () => h.client(KEYS.aKnowledge).listDocuments({})],
    ["getDocument", () => h.client(KEYS.aKnowledge).getDocument(DOC)],
    ["deleteDocument", () => h.client(KEYS.aKnowledge).deleteDocument(DOC)],
    ["searchKnowledge", () => h.client(KEYS.aKnowledge).searchKnowledge(DIGITAL_HUMANS[0].id, { query: "breakfast" })],
  ])("%s is 501 knowledge_not_configured, naming DATABASE_URL", async (_name, call) => {
    const error = await expectApiError(await call(), 501, "knowledge_not_configured");
    expect(error.detail).toMatch(/DATABASE_URL/);
  });

  it("checks the key's scope first", async () => {
    await expectApiError(await h.client(KEYS.a).listDocuments({}), 403, "forbidden");
  });

  it("refuses a digital human's document ids as no documents, saying why", async () => {
    const error = await expectApiError(
      await h.client(KEYS.aPersonas).createDigitalHuman({ name: "Maya", knowledge: { document_ids: [DOC] } }),
      422,
      "validation_failed",
    );
    expect(error.detail[0]).toMatchObject({ path: "knowledge.document_ids.0", message: expect.stringMatching(/DATABASE_URL/) });
  });
});
