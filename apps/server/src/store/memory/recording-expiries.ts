/** When ready recordings' files are deleted (RecordingExpiries), in this process (development). */
import type { RecordingExpiries } from "../../domain/recordings/ports.js";

export class MemoryRecordingExpiries implements RecordingExpiries {
  private readonly at = new Map<string, number>();

  async add(key: string, atMs: number): Promise<void> {
    this.at.set(key, Math.min(atMs, this.at.get(key) ?? atMs));
  }

  async due(nowMs: number, limit: number): Promise<string[]> {
    return [...this.at]
      .filter(([, atMs]) => atMs <= nowMs)
      .sort((a, b) => a[1] - b[1])
      .slice(0, limit)
      .map(([key]) => key);
  }

  async remove(keys: readonly string[]): Promise<void> {
    for (const key of keys) this.at.delete(key);
  }
}
