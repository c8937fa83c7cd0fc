/**
 * How many sessions each account may have open at once (contract guide, "Accounts"): the deployment's
 * default (ACCOUNT_MAX_OPEN_SESSIONS) unless the operator's keys file names another for the account; an
 * account's test side (its test keys' data) has TEST_MAX_OPEN_SESSIONS of its own. Replaced as a whole
 * when the operator's files are reloaded.
 */
import { modeOfOwner } from "./api-keys.js";

export interface AccountRecord {
  id: string;
  max_open_sessions?: number | undefined;
}

export class AccountLimits {
  private overrides = new Map<string, number>();

  constructor(
    private readonly defaultMaxOpen: number,
    accounts: readonly AccountRecord[] = [],
    private readonly testMaxOpen = 5,
  ) {
    this.replace(accounts);
  }

  replace(accounts: readonly AccountRecord[]): void {
    this.overrides = new Map(
      accounts.flatMap((account) => (account.max_open_sessions === undefined ? [] : [[account.id, account.max_open_sessions] as const])),
    );
  }

  /** For an owner of data: an account, or its test side (api-keys.ts's dataOwner). */
  maxOpenSessions(owner: string): number {
    if (modeOfOwner(owner) === "test") return this.testMaxOpen;
    return this.overrides.get(owner) ?? this.defaultMaxOpen;
  }
}
