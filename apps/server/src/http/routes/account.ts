/**
 * The /v1/usage operation: translate HTTP to AccountService calls and back, nothing more.
 */
import type { AccountService } from "../../domain/accounts/account-service.js";
import type { OperationHandlers } from "../operations.js";

export function accountOperations(accounts: AccountService): Pick<OperationHandlers, "getUsage"> {
  return {
    // GET /v1/usage
    getUsage: async ({ query }, principal) => ({ body: await accounts.usage(principal, query.from, query.to) }),
  };
}
