/**
 * What an account may use and what it used (contract guide, "Accounts"): the principal with its limits
 * and open sessions, and its usage per UTC day. Its digital humans are digital-humans/'s.
 */
import { type Principal as PrincipalView, scopeValues, type Usage } from "@dhs/contract";
import { AppError } from "../app-error.js";
import type { SessionRecords, UsageCounters } from "../sessions/ports.js";
import { daysBetween, MAX_USAGE_DAYS, usageReport } from "../sessions/usage.js";
import type { AccountLimits } from "./account-limits.js";
import type { Principal } from "./api-keys.js";

export interface AccountServiceDeps {
  store: Pick<SessionRecords, "openSessions"> & UsageCounters;
  accounts: AccountLimits;
  /** Per-key rate limits, or undefined when the deployment enforces none. */
  rateLimit: { perSecond: number; burst: number } | undefined;
  now?: () => Date;
}

const DEFAULT_USAGE_DAYS = 30;

export class AccountService {
  private readonly now: () => Date;

  constructor(private readonly deps: AccountServiceDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  async principal(principal: Principal): Promise<PrincipalView> {
    const { accounts, rateLimit, store } = this.deps;
    return {
      key_id: principal.keyId,
      account_id: principal.account,
      mode: principal.mode,
      scopes: scopeValues.filter((scope) => principal.scopes.has(scope)),
      limits: {
        open_sessions: accounts.maxOpenSessions(principal.accountId),
        requests_per_second: rateLimit?.perSecond ?? null,
        burst: rateLimit?.burst ?? null,
      },
      usage: { open_sessions: await store.openSessions(principal.accountId) },
    };
  }

  /** Usage per UTC day from `from` to `to` (both included; the last 30 days by default; at most 92). */
  async usage(principal: Principal, from: string | undefined, to: string | undefined): Promise<Usage> {
    const last = to ?? this.now().toISOString().slice(0, 10);
    const first = from ?? new Date(Date.parse(`${last}T00:00:00Z`) - (DEFAULT_USAGE_DAYS - 1) * 86_400_000).toISOString().slice(0, 10);
    if (first > last) throw rangeError("from", "must not be after to");
    const days = daysBetween(first, last);
    if (days.length > MAX_USAGE_DAYS) throw rangeError(from === undefined ? "to" : "from", `the range is at most ${MAX_USAGE_DAYS} days`);
    return usageReport(first, last, await this.deps.store.usage(principal.accountId, days));
  }
}

function rangeError(path: string, message: string): AppError {
  return new AppError("validation_failed", [{ location: "query", path, message }]);
}
