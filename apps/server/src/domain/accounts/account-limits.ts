/**
 * How many sessions each account may have open at once (contract guide, "Accounts"): the deployment's
 * default (ACCOUNT_MAX_OPEN_SESSIONS) unless the operator's keys file names another for the account.
 * Replaced as a whole when the operator's files are reloaded.
 */

export interface AccountRecord {
  id: string;
  max_open_sessions?: number | undefined;
}

export class AccountLimits {
  private overrides = new Map<string, number>();

  constructor(
    private readonly defaultMaxOpen: number,
    accounts: readonly AccountRecord[] = [],
  ) {
    this.replace(accounts);
  }

  replace(accounts: readonly AccountRecord[]): void {
    this.overrides = new Map(
      accounts.flatMap((account) => (account.max_open_sessions === undefined ? [] : [[account.id, account.max_open_sessions] as const])),
    );
  }

  maxOpenSessions(accountId: string): number {
    return this.overrides.get(accountId) ?? this.defaultMaxOpen;
  }
}
