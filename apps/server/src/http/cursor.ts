/**
 * The cursors of the lists (listSessions, listWebhookDeliveries): opaque to callers (the contract's guide, "Pagination"), base64url of the last
 * item's creation time and id. A cursor this API did not issue is a 422 naming the query parameter.
 */
import { AppError } from "../domain/app-error.js";
import type { DigitalHumanPosition } from "../domain/digital-humans/digital-human-service.js";
import type { ListPosition } from "../domain/sessions/ports.js";

export function encodeCursor(position: ListPosition): string {
  return Buffer.from(JSON.stringify([position.createdAtMs, position.id])).toString("base64url");
}

export function decodeCursor(cursor: string): ListPosition {
  try {
    const [createdAtMs, id] = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as unknown[];
    if (typeof createdAtMs === "number" && Number.isSafeInteger(createdAtMs) && typeof id === "string" && id.length <= 64) {
      return { createdAtMs, id };
    }
  } catch {
    // fall through
  }
  throw notIssued();
}

function notIssued(): AppError {
  return new AppError("validation_failed", [{ location: "query", path: "cursor", message: "is not a cursor issued by this API" }]);
}

/**
 * The cursors of lists that page after one id (listWebhookDeliveries: an attempt's `<ms>-<seq>`;
 * listDigitalHumans: a UUID): base64url of that id. `shape` is what the list's ids look like, so a cursor
 * of another list, or one not issued at all, is refused.
 */
export function encodeIdCursor(id: string): string {
  return Buffer.from(JSON.stringify([id])).toString("base64url");
}

export function decodeIdCursor(cursor: string, shape: RegExp): string {
  try {
    const [id] = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as unknown[];
    if (typeof id === "string" && shape.test(id)) return id;
  } catch {
    // fall through
  }
  throw notIssued();
}

/**
 * The cursor of listDigitalHumans: after one of the account's own (its creation time and id), or after a
 * stock one (its id).
 */
export function encodeDigitalHumanCursor(position: DigitalHumanPosition): string {
  const parts = position.kind === "custom" ? ["c", position.createdAtMs, position.id] : ["s", position.id];
  return Buffer.from(JSON.stringify(parts)).toString("base64url");
}

export function decodeDigitalHumanCursor(cursor: string): DigitalHumanPosition {
  try {
    const [kind, a, b] = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as unknown[];
    if (kind === "s" && typeof a === "string" && ID_SHAPES.uuid.test(a) && b === undefined) return { kind: "stock", id: a };
    if (
      kind === "c" &&
      typeof a === "number" &&
      Number.isSafeInteger(a) &&
      Math.abs(a) <= MAX_TIME_MS &&
      typeof b === "string" &&
      ID_SHAPES.uuid.test(b)
    ) {
      return { kind: "custom", createdAtMs: a, id: b };
    }
  } catch {
    // fall through
  }
  throw notIssued();
}

/** The most a JavaScript Date can say (ms either side of the epoch). */
const MAX_TIME_MS = 8.64e15;

export const ID_SHAPES = { logEntry: /^[0-9]{1,16}-[0-9]{1,10}$/, uuid: /^[0-9a-f-]{36}$/ } as const;
