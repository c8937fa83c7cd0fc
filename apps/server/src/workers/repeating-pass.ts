/**
 * Work a replica repeats on an interval (the timer sweep, the room reconciliation): a pass never starts
 * while the previous one still runs, a failed pass is reported and the next one comes as usual, and
 * stopping waits for the pass in flight.
 */
export class RepeatingPass {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly pass: () => Promise<unknown>,
    private readonly intervalMs: number,
    private readonly onError?: (error: unknown) => void,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      this.running ??= this.pass()
        .then(
          () => undefined,
          (error: unknown) => this.onError?.(error),
        )
        .finally(() => {
          this.running = undefined;
        });
    }, this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}
