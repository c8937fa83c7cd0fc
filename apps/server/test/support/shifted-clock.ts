/**
 * A clock a test moves forward: the wall clock plus what the test has added, so it goes on as time does
 * and jumps when the test says (past a retry's due time, past an endpoint's failing streak), instead of
 * the test waiting for the time to pass. Given to compose as a worker's clock (webhookClock,
 * recordingClock, timerClock). Within a test it never goes back, so nothing due by it stops being due;
 * between tests `reset` puts it back on the wall clock, so each test's times are its own.
 */
export class ShiftedClock {
  private shiftMs = 0;

  readonly now = (): number => Date.now() + this.shiftMs;

  /** Moves it `ms` ahead. */
  advance(ms: number): void {
    this.shiftMs += ms;
  }

  /** Back on the wall clock: between tests, once each test's own timers and deliveries are done. */
  reset(): void {
    this.shiftMs = 0;
  }

  /** Moves it to `atMs` unless it is already past it. */
  advanceTo(atMs: number): void {
    this.shiftMs = Math.max(this.shiftMs, atMs - Date.now());
  }
}

/**
 * `timersAfter(ms)`: moves `clock` `ms` on and has the sweeper (read when called: a harness composes it
 * in its beforeAll) fire every session timer due by then.
 */
export function timersAfterOf(clock: ShiftedClock, sweeper: () => { sweep(): Promise<number> }): (ms: number) => Promise<void> {
  return async (ms) => {
    clock.advance(ms);
    await sweeper().sweep();
  };
}
