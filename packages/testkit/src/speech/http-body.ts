/**
 * A request body read whole, but never more than a limit: the speech stand-ins take uploads from the
 * client under test, and one that says (or sends) more than the provider accepts gets the provider's 413
 * rather than the stand-in's memory.
 */
import type { IncomingMessage } from "node:http";

export class BodyTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`the request body is over ${limit} bytes`);
  }
}

/** The body of `req`, or a BodyTooLarge as soon as its length (declared or received) passes `limit`. */
export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers["content-length"] ?? 0);
  if (declared > limit) throw new BodyTooLarge(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    // Stop reading: the caller answers 413 with `connection: close`, so the rest is never taken in.
    if (size > limit) throw new BodyTooLarge(limit);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}
