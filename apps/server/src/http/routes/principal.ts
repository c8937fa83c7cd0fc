/**
 * GET /v1/me: the principal behind the API key, with its account's limits and use.
 */
import type { AccountService } from "../../domain/accounts/account-service.js";
import type { OperationHandlers } from "../operations.js";

export function principalOperations(accounts: AccountService): Pick<OperationHandlers, "getPrincipal"> {
  return {
    // GET /v1/me
    getPrincipal: async (_request, principal) => ({ body: await accounts.principal(principal) }),
  };
}
