/**
 * Deletes ready recordings' files once their retention is over (RECORDING_RETENTION_DAYS). Every replica
 * runs one: deleting a file twice is no harm, and an index entry is dropped only after its file was
 * deleted, so a store that is down delays the deletion, never forgets it. The record needs no change: a
 * ready recording past its `expires_at` is shown `deleted` (stored-recording.ts).
 */
import type { RecordingExpiries, RecordingStorage } from "../domain/recordings/ports.js";
import { RepeatingPass } from "./repeating-pass.js";

export interface RecordingRetentionOptions {
  intervalMs: number;
  batch?: number;
  now?: () => number;
  onDeleted?: (count: number) => void;
  onError?: (error: unknown) => void;
}

export class RecordingRetention {
  private readonly repeating: RepeatingPass;

  constructor(
    private readonly expiries: RecordingExpiries,
    private readonly storage: RecordingStorage,
    private readonly options: RecordingRetentionOptions,
  ) {
    this.repeating = new RepeatingPass(() => this.pass(), options.intervalMs, options.onError);
  }

  start(): void {
    this.repeating.start();
  }

  stop(): Promise<void> {
    return this.repeating.stop();
  }

  /** Deletes every file due now, a batch at a time; returns how many. */
  async pass(): Promise<number> {
    const { batch = 100, now = Date.now } = this.options;
    let deleted = 0;
    for (;;) {
      const keys = await this.expiries.due(now(), batch);
      for (const key of keys) await this.storage.delete(key);
      await this.expiries.remove(keys);
      deleted += keys.length;
      if (keys.length < batch) break;
    }
    if (deleted > 0) this.options.onDeleted?.(deleted);
    return deleted;
  }
}
