/**
 * The /v1/sessions operations, and the test helpers that drive a test session: translate HTTP to
 * SessionService calls and back, nothing more.
 */
import type { SessionService } from "../../domain/sessions/session-service.js";
import type { Cursors } from "../cursor.js";
import type { OperationHandlers } from "../operations.js";

export function sessionOperations(
  sessions: SessionService,
  cursors: Cursors,
): Pick<
  OperationHandlers,
  "createSession" | "listSessions" | "getSession" | "refreshSessionToken" | "endSession" | "sendTestSessionEvent"
> {
  return {
    // POST /v1/sessions
    createSession: async ({ header, body }, principal) => {
      // No body means {} (the contract makes the body optional); both fingerprint alike.
      const { session, replayed } = await sessions.create(principal, header["Idempotency-Key"], body ?? {});
      return { status: 201, body: session, headers: replayed ? { "Idempotent-Replayed": "true" } : {} };
    },

    // GET /v1/sessions
    listSessions: async ({ query }, principal) => {
      const owner = principal.accountId;
      const after = query.cursor === undefined ? undefined : cursors.sessions.decode(owner, query.cursor);
      const page = await sessions.list(principal, { status: query.status, limit: query.limit ?? 20, after });
      return { body: { data: page.items, next_cursor: page.next ? cursors.sessions.encode(owner, page.next) : null } };
    },

    // GET /v1/sessions/{session_id}
    getSession: async ({ path }, principal) => ({ body: await sessions.get(principal, path.session_id) }),

    // POST /v1/sessions/{session_id}/token
    refreshSessionToken: async ({ path }, principal) => ({ body: await sessions.refreshToken(principal, path.session_id) }),

    // POST /v1/sessions/{session_id}/end
    endSession: async ({ path }, principal) => ({ body: await sessions.end(principal, path.session_id) }),

    // POST /v1/test-helpers/sessions/{session_id}/events
    sendTestSessionEvent: async ({ path, body }, principal) => ({ body: await sessions.testEvent(principal, path.session_id, body) }),
  };
}
