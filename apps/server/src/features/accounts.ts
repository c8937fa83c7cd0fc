/**
 * Accounts as a feature: what a key may do at once (open sessions, requests per second) and what its
 * account used, and the operations that say so (getUsage, getPrincipal).
 */
import { AccountService, type AccountServiceDeps } from "../domain/accounts/account-service.js";
import { accountOperations } from "../http/routes/account.js";
import { principalOperations } from "../http/routes/principal.js";
import type { Feature } from "./feature.js";

export function accountsOf(deps: AccountServiceDeps) {
  const accounts = new AccountService(deps);
  return {
    accounts,
    feature: {
      name: "accounts",
      operations: { ...accountOperations(accounts), ...principalOperations(accounts) },
    } satisfies Feature,
  };
}
