/**
 * The local store's signed URLs: an HMAC of the method, the object's key, the file name it is served as
 * (a download) or the Content-Type it must be sent with (an upload), and the expiry, so a link works for
 * one method on one object until its time, and changing any of them (another key, a later expiry, PUT
 * for GET) voids it. The secret is the service's own (derived from
 * LiveKit's, which every replica holds, as the cursors' key is), so any replica checks what another signed.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

export type SignedMethod = "GET" | "PUT";

export interface SignedFields {
  method: SignedMethod;
  key: string;
  /** Unix seconds. */
  expires: number;
  /** The name a download is served as (empty for an upload). */
  fileName: string;
  /** The Content-Type an upload must have (empty for a download). */
  contentType: string;
}

export class UrlSigner {
  constructor(private readonly secret: Buffer) {}

  sign(fields: SignedFields): string {
    return createHmac("sha256", this.secret)
      .update(`dhs-recording-url\n${fields.method}\n${fields.key}\n${fields.expires}\n${fields.fileName}\n${fields.contentType}`)
      .digest("base64url");
  }

  /** Whether `signature` is this signer's for `fields`, and `fields.expires` has not passed by `nowMs`. */
  verify(fields: SignedFields, signature: string, nowMs: number): boolean {
    if (!Number.isSafeInteger(fields.expires) || fields.expires * 1000 <= nowMs) return false;
    const expected = Buffer.from(this.sign(fields));
    const given = Buffer.from(signature);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}
