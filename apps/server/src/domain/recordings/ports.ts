/**
 * Where sessions' recordings are kept (issue 53): an object store the operator chooses, a local
 * directory (the embedded default: the service itself serves the files at its signed URLs) or any
 * S3-compatible bucket. The job that records never holds the store's credentials: it is given an upload
 * target for its one object, valid for a bounded time; readers are given a download link made fresh on
 * each read, valid for a bounded time and for that object alone.
 */

/** Where one object may be uploaded: a PUT of its bytes to `url` with `headers`, until `expiresAt`. */
export interface UploadTarget {
  url: string;
  method: "PUT";
  headers: Record<string, string>;
  expiresAt: Date;
}

export interface DownloadLink {
  url: string;
  expiresAt: Date;
}

export interface RecordingStorage {
  /** An upload target for `key` alone, valid for `expiresInS`; its Content-Type must be `contentType`. */
  uploadTarget(key: string, options: { contentType: string; expiresInS: number }): Promise<UploadTarget>;
  /** A link that downloads `key` as `fileName`, valid for `expiresInS` (signed; nothing is checked here). */
  downloadLink(key: string, options: { expiresInS: number; fileName: string }): Promise<DownloadLink>;
  /** The object's size, or undefined when there is none (not uploaded yet, or deleted). */
  stat(key: string): Promise<{ sizeBytes: number } | undefined>;
  /** Deletes the object; none is no error. */
  delete(key: string): Promise<void>;
}

/**
 * An object's key: path segments of letters, digits and `._#-`, none of them `.` or `..`, so that no key
 * reaches outside the store's directory or prefix, whatever the session's data holds.
 */
const KEY = /^(?:[A-Za-z0-9_#-][A-Za-z0-9._#-]*)(?:\/[A-Za-z0-9_#-][A-Za-z0-9._#-]*)*$/;

export function isRecordingKey(key: string): boolean {
  return key.length <= 512 && KEY.test(key) && !key.split("/").some((segment) => segment === "." || segment === "..");
}

/**
 * When each ready recording's file is to be deleted (RECORDING_RETENTION_DAYS), and each discarded one
 * deleted again: an index apart from the sessions, so a file outlives no record of it, however long its
 * session is kept.
 */
export interface RecordingExpiries {
  /**
   * The file `key` is to be deleted at `atMs`; asked again, at the sooner time: a file is kept as long
   * as its retention at most, and an erased one goes once its last upload target has lapsed, whatever
   * retention it had (a write-back with that target must not be kept for 30 days).
   */
  add(key: string, atMs: number): Promise<void>;
  /** Up to `limit` keys due by `nowMs`, oldest first. */
  due(nowMs: number, limit: number): Promise<string[]>;
  /** Forgets `keys` (their files were deleted). */
  remove(keys: readonly string[]): Promise<void>;
}
