/**
 * listSessions' cursors: opaque to callers (the contract's guide, "Pagination"), base64url of the last
 * item's creation time and id. A cursor this API did not issue is a 422 naming the query parameter.
 */
import { AppError } from "../domain/app-error.js";
import type { ListPosition } from "../domain/ports.js";

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
  throw new AppError("validation_failed", [{ location: "query", path: "cursor", message: "is not a cursor issued by this API" }]);
}
