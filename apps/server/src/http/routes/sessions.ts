/**
 * The /v1/sessions operations, and the test helpers that drive a test session: translate HTTP to
 * SessionService calls and back, nothing more.
 */
import type { ListSessionsQuery, SessionCreate, SessionList, TestSessionEvent } from "@dhs/contract";
import type { SessionService } from "../../domain/sessions/session-service.js";
import { principalOf } from "../authenticate.js";
import { decodeCursor, encodeCursor } from "../cursor.js";
import type { OperationHandlers } from "../operations.js";

export function sessionOperations(
  sessions: SessionService,
): Pick<
  OperationHandlers,
  "createSession" | "listSessions" | "getSession" | "refreshSessionToken" | "endSession" | "sendTestSessionEvent"
> {
  return {
    // POST /v1/sessions
    createSession: async (req, res) => {
      // The validator has checked the header and the body against the contract.
      const key = req.get("Idempotency-Key") as string;
      // No body means {} (the contract makes the body optional); both fingerprint alike.
      const body = (req.body ?? {}) as SessionCreate;
      const { session, replayed } = await sessions.create(principalOf(res), key, body);
      if (replayed) res.setHeader("Idempotent-Replayed", "true");
      res.status(201).json(session);
    },

    // GET /v1/sessions
    listSessions: async (req, res) => {
      // The validator has coerced limit to a number and checked status against the contract.
      const query = req.query as ListSessionsQuery;
      const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
      const page = await sessions.list(principalOf(res), { status: query.status, limit: query.limit ?? 20, after });
      const body: SessionList = { data: page.items, next_cursor: page.next ? encodeCursor(page.next) : null };
      res.json(body);
    },

    // GET /v1/sessions/{session_id}
    getSession: async (req, res) => {
      res.json(await sessions.get(principalOf(res), req.params.session_id as string));
    },

    // POST /v1/sessions/{session_id}/token
    refreshSessionToken: async (req, res) => {
      res.json(await sessions.refreshToken(principalOf(res), req.params.session_id as string));
    },

    // POST /v1/sessions/{session_id}/end
    endSession: async (req, res) => {
      res.json(await sessions.end(principalOf(res), req.params.session_id as string));
    },

    // POST /v1/test-helpers/sessions/{session_id}/events
    sendTestSessionEvent: async (req, res) => {
      res.json(await sessions.testEvent(principalOf(res), req.params.session_id as string, req.body as TestSessionEvent));
    },
  };
}
