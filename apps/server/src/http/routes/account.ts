/**
 * The /v1/digital-humans and /v1/usage operations: translate HTTP to AccountService calls and back, nothing more.
 */
import type { DigitalHumanList, GetUsageQuery, ListDigitalHumansQuery } from "@dhs/contract";
import type { AccountService } from "../../domain/accounts/account-service.js";
import { principalOf } from "../authenticate.js";
import { decodeIdCursor, encodeIdCursor, ID_SHAPES } from "../cursor.js";
import type { OperationHandlers } from "../operations.js";

export function accountOperations(accounts: AccountService): Pick<OperationHandlers, "listDigitalHumans" | "getDigitalHuman" | "getUsage"> {
  return {
    // GET /v1/digital-humans
    listDigitalHumans: (req, res) => {
      // The validator has coerced limit to a number.
      const query = req.query as ListDigitalHumansQuery;
      const after = query.cursor === undefined ? undefined : decodeIdCursor(query.cursor, ID_SHAPES.uuid);
      const page = accounts.digitalHumans(principalOf(res), query.limit ?? 20, after);
      const body: DigitalHumanList = { data: page.items, next_cursor: page.next === null ? null : encodeIdCursor(page.next) };
      res.json(body);
    },

    // GET /v1/digital-humans/{digital_human_id}
    getDigitalHuman: (req, res) => {
      res.json(accounts.digitalHuman(principalOf(res), (req.params.digital_human_id as string).toLowerCase()));
    },

    // GET /v1/usage
    getUsage: async (req, res) => {
      const query = req.query as GetUsageQuery;
      res.json(await accounts.usage(principalOf(res), query.from, query.to));
    },
  };
}
