/**
 * The /v1/documents operations and searchKnowledge, and the digital human's searchSessionKnowledge:
 * translate HTTP to the knowledge's services and back, nothing more.
 */
import type { DocumentInput, DocumentService } from "../../domain/knowledge/document-service.js";
import type { SessionKnowledge } from "../../domain/knowledge/session-knowledge.js";
import type { Cursors } from "../cursor.js";
import type { DigitalHumanOperationHandlers, OperationHandlers } from "../operations.js";

export function documentOperations(
  documents: DocumentService,
  cursors: Cursors,
): Pick<OperationHandlers, "createDocument" | "listDocuments" | "getDocument" | "deleteDocument" | "searchKnowledge"> {
  return {
    // POST /v1/documents
    createDocument: async ({ header, body, upload }, principal) => {
      let input: DocumentInput;
      if ("content" in body) input = { json: body };
      else {
        // multipart-body.ts keeps every validated multipart request's file; its absence is a bug.
        if (!upload) throw new Error("a multipart createDocument reached its handler without its file");
        const { file: _file, ...fields } = body;
        input = { fields, file: upload };
      }
      const { view, replayed } = await documents.create(principal, header["Idempotency-Key"], input);
      return { status: 201, body: view, headers: replayed ? { "Idempotent-Replayed": "true" } : {} };
    },

    // GET /v1/documents
    listDocuments: async ({ query }, principal) => {
      const owner = principal.accountId;
      const after = query.cursor === undefined ? undefined : cursors.documents.decode(owner, query.cursor);
      const page = await documents.list(principal, { limit: query.limit ?? 20, after });
      return { body: { data: page.items, next_cursor: page.next === null ? null : cursors.documents.encode(owner, page.next) } };
    },

    // GET /v1/documents/{document_id}
    getDocument: async ({ path }, principal) => ({ body: await documents.get(principal, path.document_id) }),

    // DELETE /v1/documents/{document_id}
    deleteDocument: async ({ path }, principal) => ({ body: await documents.delete(principal, path.document_id) }),

    // POST /v1/digital-humans/{digital_human_id}/knowledge/search
    searchKnowledge: async ({ path, body }, principal) => ({
      body: await documents.search(principal, path.digital_human_id.toLowerCase(), body),
    }),
  };
}

/** The digital human's: what its session's documents hold for a turn. */
export function knowledgeJobOperations(knowledge: SessionKnowledge): Pick<DigitalHumanOperationHandlers, "searchSessionKnowledge"> {
  return {
    // POST /v1/sessions/{session_id}/conversation/knowledge
    searchSessionKnowledge: async ({ body }, caller) => ({ body: await knowledge.search(caller.sessionId, body) }),
  };
}
