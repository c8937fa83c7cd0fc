/**
 * The /v1/digital-humans and /v1/usage operations: translate HTTP to AccountService calls and back, nothing more.
 */
import type { AccountService } from "../../domain/accounts/account-service.js";
import { decodeIdCursor, encodeIdCursor, ID_SHAPES } from "../cursor.js";
import type { OperationHandlers } from "../operations.js";

export function accountOperations(accounts: AccountService): Pick<OperationHandlers, "listDigitalHumans" | "getDigitalHuman" | "getUsage"> {
  return {
    // GET /v1/digital-humans
    listDigitalHumans: ({ query }, principal) => {
      const after = query.cursor === undefined ? undefined : decodeIdCursor(query.cursor, ID_SHAPES.uuid);
      const page = accounts.digitalHumans(principal, query.limit ?? 20, after);
      return { body: { data: page.items, next_cursor: page.next === null ? null : encodeIdCursor(page.next) } };
    },

    // GET /v1/digital-humans/{digital_human_id}
    getDigitalHuman: ({ path }, principal) => ({ body: accounts.digitalHuman(principal, path.digital_human_id.toLowerCase()) }),

    // GET /v1/usage
    getUsage: async ({ query }, principal) => ({ body: await accounts.usage(principal, query.from, query.to) }),
  };
}
