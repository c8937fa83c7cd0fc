/**
 * The cursors of the lists (contract guide, "Pagination"): opaque to callers, and sealed, so that only a
 * cursor this API issued for the same list, the same account and mode, and the same session or endpoint is
 * taken. A cursor is an HMAC-SHA256 tag (16 bytes) followed by the base64url JSON of where the page
 * starts; the tag covers the list, its scope and the payload, under a key every replica derives alike.
 * Anything else (tampered, forged, another list's, another session's) is a 422 naming the query parameter,
 * before any store is asked: a value a cursor carries never reaches a Redis script unchecked.
 */
import { createHmac, hkdfSync, timingSafeEqual } from "node:crypto";
import { AppError } from "../domain/app-error.js";
import type { DigitalHumanPosition } from "../domain/digital-humans/digital-human-service.js";
import type { ListPosition } from "../domain/list-order.js";
import type { SegmentPosition } from "../domain/transcripts/transcript.js";

/** Which list a cursor pages; a cursor of one is refused by every other. */
export type CursorList = "sessions" | "transcript" | "deliveries" | "digital_humans" | "documents";

const TAG_BYTES = 16;
/** base64url of 16 bytes, unpadded. */
const TAG_CHARS = 22;
/** The most a JavaScript Date can say (ms either side of the epoch): a position beyond is none of ours. */
const MAX_TIME_MS = 8.64e15;

export const ID_SHAPES = {
  /** A Redis stream entry id above 0-0, as the delivery log's are. */
  logEntry: /^(?:[1-9][0-9]{0,15}-[0-9]{1,10}|0-[1-9][0-9]{0,9})$/,
  uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
  document: /^doc_[0-9a-f]{24}$/,
} as const;

export class Cursors {
  private readonly key: Buffer;

  /** `secret`: one every replica of the deployment shares (compose derives the key from LiveKit's API secret). */
  constructor(secret: string) {
    this.key = Buffer.from(hkdfSync("sha256", secret, "", "dhs list cursors v1", 32));
  }

  /** listSessions: after a session (its creation time and id), for this data owner. */
  sessions = {
    encode: (owner: string, position: ListPosition): string => this.seal("sessions", owner, [position.createdAtMs, position.id]),
    decode: (owner: string, cursor: string): ListPosition => {
      const [createdAtMs, id] = this.open("sessions", owner, cursor);
      if (isTime(createdAtMs) && typeof id === "string" && ID_SHAPES.uuid.test(id)) return { createdAtMs, id };
      throw notIssued();
    },
  };

  /** getSessionTranscript: after a segment (its start time and id), of this owner's session. */
  transcript = {
    encode: (owner: string, sessionId: string, position: SegmentPosition): string =>
      this.seal("transcript", `${owner}/${sessionId.toLowerCase()}`, [position.startedAtMs, position.id]),
    decode: (owner: string, sessionId: string, cursor: string): SegmentPosition => {
      const [startedAtMs, id] = this.open("transcript", `${owner}/${sessionId.toLowerCase()}`, cursor);
      if (isTime(startedAtMs) && typeof id === "string" && id.length > 0 && id.length <= 128) return { startedAtMs, id };
      throw notIssued();
    },
  };

  /** listWebhookDeliveries: after an attempt of the log (its entry id), of this owner's endpoint. */
  deliveries = {
    encode: (owner: string, endpointId: string, entryId: string): string => this.seal("deliveries", `${owner}/${endpointId}`, [entryId]),
    decode: (owner: string, endpointId: string, cursor: string): string => {
      const [entryId] = this.open("deliveries", `${owner}/${endpointId}`, cursor);
      if (typeof entryId === "string" && ID_SHAPES.logEntry.test(entryId)) return entryId;
      throw notIssued();
    },
  };

  /** listDigitalHumans: after one of the account's own (creation time and id), or after a stock one. */
  digitalHumans = {
    encode: (owner: string, position: DigitalHumanPosition): string =>
      this.seal("digital_humans", owner, position.kind === "custom" ? ["c", position.createdAtMs, position.id] : ["s", position.id]),
    decode: (owner: string, cursor: string): DigitalHumanPosition => {
      const [kind, a, b] = this.open("digital_humans", owner, cursor);
      if (kind === "s" && typeof a === "string" && ID_SHAPES.uuid.test(a) && b === undefined) return { kind: "stock", id: a };
      if (kind === "c" && isTime(a) && typeof b === "string" && ID_SHAPES.uuid.test(b)) return { kind: "custom", createdAtMs: a, id: b };
      throw notIssued();
    },
  };

  /** listDocuments: after a document (its creation time and id), for this data owner. */
  documents = {
    encode: (owner: string, position: ListPosition): string => this.seal("documents", owner, [position.createdAtMs, position.id]),
    decode: (owner: string, cursor: string): ListPosition => {
      const [createdAtMs, id] = this.open("documents", owner, cursor);
      if (isTime(createdAtMs) && typeof id === "string" && ID_SHAPES.document.test(id)) return { createdAtMs, id };
      throw notIssued();
    },
  };

  private seal(list: CursorList, scope: string, values: readonly (string | number)[]): string {
    const payload = Buffer.from(JSON.stringify(values)).toString("base64url");
    return `${this.tag(list, scope, payload).toString("base64url")}${payload}`;
  }

  /** The payload's values, once the tag proves this API sealed them for this list and scope. */
  private open(list: CursorList, scope: string, cursor: string): unknown[] {
    const tag = Buffer.from(cursor.slice(0, TAG_CHARS), "base64url");
    const payload = cursor.slice(TAG_CHARS);
    // The canonical encoding only: another spelling of the same bytes is not what this API issued.
    if (tag.length !== TAG_BYTES || tag.toString("base64url") !== cursor.slice(0, TAG_CHARS) || payload === "") throw notIssued();
    if (!timingSafeEqual(tag, this.tag(list, scope, payload))) throw notIssued();
    try {
      const values: unknown = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
      if (Array.isArray(values)) return values;
    } catch {
      // sealed by this API, so never malformed; refused all the same
    }
    throw notIssued();
  }

  private tag(list: CursorList, scope: string, payload: string): Buffer {
    return createHmac("sha256", this.key).update(`${list}\n${scope}\n${payload}`).digest().subarray(0, TAG_BYTES);
  }
}

function isTime(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && Math.abs(value) <= MAX_TIME_MS;
}

function notIssued(): AppError {
  return new AppError("validation_failed", [
    { location: "query", path: "cursor", message: "is not a cursor issued by this API for this list" },
  ]);
}
