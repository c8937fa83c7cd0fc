/**
 * The /v1/digital-humans and /v1/voices operations: translate HTTP to DigitalHumanService calls and back,
 * nothing more.
 */
import type { DigitalHumanService } from "../../domain/digital-humans/digital-human-service.js";
import type { Cursors } from "../cursor.js";
import type { OperationHandlers } from "../operations.js";

export function digitalHumanOperations(
  digitalHumans: DigitalHumanService,
  cursors: Cursors,
): Pick<
  OperationHandlers,
  "createDigitalHuman" | "listDigitalHumans" | "getDigitalHuman" | "updateDigitalHuman" | "deleteDigitalHuman" | "listVoices"
> {
  return {
    // POST /v1/digital-humans
    createDigitalHuman: async ({ header, body }, principal) => {
      const { view, replayed } = await digitalHumans.create(principal, header["Idempotency-Key"], body);
      return { status: 201, body: view, headers: replayed ? { "Idempotent-Replayed": "true" } : {} };
    },

    // GET /v1/digital-humans
    listDigitalHumans: async ({ query }, principal) => {
      const owner = principal.accountId;
      const after = query.cursor === undefined ? undefined : cursors.digitalHumans.decode(owner, query.cursor);
      const page = await digitalHumans.list(principal, { kind: query.kind, limit: query.limit ?? 20, after });
      return { body: { data: page.items, next_cursor: page.next === null ? null : cursors.digitalHumans.encode(owner, page.next) } };
    },

    // GET /v1/digital-humans/{digital_human_id}
    getDigitalHuman: async ({ path }, principal) => ({ body: await digitalHumans.get(principal, path.digital_human_id.toLowerCase()) }),

    // PATCH /v1/digital-humans/{digital_human_id}
    updateDigitalHuman: async ({ path, body }, principal) => ({
      body: await digitalHumans.update(principal, path.digital_human_id.toLowerCase(), body),
    }),

    // DELETE /v1/digital-humans/{digital_human_id}
    deleteDigitalHuman: async ({ path }, principal) => ({
      body: await digitalHumans.delete(principal, path.digital_human_id.toLowerCase()),
    }),

    // GET /v1/voices
    listVoices: () => ({ body: { data: digitalHumans.voices() } }),
  };
}
