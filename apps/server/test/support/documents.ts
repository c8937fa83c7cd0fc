/** The knowledge tests' shared step: a document read until its processing ends (ready or failed). */
import type { DhsClient } from "@dhs/client";
import { expectData, until } from "./harness.js";

export type Doc = { id: string; name: string; format: string; status: string; chunks: number; error: string | null; size_bytes: number };

export async function settledDocument(client: DhsClient, id: string): Promise<Doc> {
  return until(
    async () => {
      const doc = expectData(await client.getDocument(id)) as Doc;
      return doc.status === "processing" ? undefined : doc;
    },
    { what: `document ${id} processed` },
  );
}
