/**
 * How long a recording plays, read from its Ogg/Opus file (RFC 3533, RFC 7845) rather than timed by the
 * job: `finishSessionRecording` reports the file's `duration_ms`, and the file is what people hear.
 *
 * An Ogg page's header carries the granule position of the last packet ending on it: for Opus, the
 * count of 48 kHz samples decoded so far, counting the encoder's pre-skip (the priming samples a player
 * drops, written in the OpusHead packet of the first page). So the file plays (last page's granule -
 * pre-skip) / 48 ms. The recorder's ffmpeg starts the stream at granule 0, as RFC 7845 recommends.
 *
 * Only the first page and the last one are read, whatever the file's length (a day's session is
 * hundreds of MB): the last page is the one whose header and body end exactly at the end of the file.
 * The pages' CRCs are not checked: reading a granule needs none, and a file damaged inside still plays
 * as far as the player can; a file that ends mid-page (the encoder was cut off) or has no OpusHead is
 * unreadable here, and then the job reports the recording failed rather than a duration it made up.
 */
import { open } from "node:fs/promises";

const CAPTURE = [0x4f, 0x67, 0x67, 0x53]; // "OggS"
const HEADER_BYTES = 27;
/** The largest page: its header, 255 lacing values, and 255 segments of 255 bytes. */
export const MAX_PAGE_BYTES = HEADER_BYTES + 255 + 255 * 255;
const OPUS_HEAD = "OpusHead";
/** A granule of -1: no packet ends on the page. */
const NO_GRANULE = 0xffff_ffff_ffff_ffffn;

interface Page {
  granule: bigint;
  serial: number;
  bodyStart: number;
  end: number;
}

/** The page at `at`, if the bytes hold its whole header and body. */
function pageAt(bytes: Uint8Array, at: number): Page | undefined {
  if (at + HEADER_BYTES > bytes.length || CAPTURE.some((byte, i) => bytes[at + i] !== byte) || bytes[at + 4] !== 0) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const segments = bytes[at + 26] ?? 0;
  const bodyStart = at + HEADER_BYTES + segments;
  if (bodyStart > bytes.length) return undefined;
  let bodyBytes = 0;
  for (let i = at + HEADER_BYTES; i < bodyStart; i++) bodyBytes += bytes[i] ?? 0;
  const end = bodyStart + bodyBytes;
  if (end > bytes.length) return undefined;
  return { granule: view.getBigUint64(at + 6, true), serial: view.getUint32(at + 14, true), bodyStart, end };
}

/**
 * The duration in milliseconds of an Ogg/Opus stream, given the file's first bytes (`head`, at least its
 * first page) and its last ones (`tail`, at least its last page, ending where the file ends); undefined
 * when they hold no such stream, or it ends mid-page.
 */
export function oggOpusDurationMs(head: Uint8Array, tail: Uint8Array): number | undefined {
  const first = pageAt(head, 0);
  if (!first) return undefined;
  const opusHead = head.subarray(first.bodyStart, first.end);
  if (opusHead.length < 19 || new TextDecoder().decode(opusHead.subarray(0, 8)) !== OPUS_HEAD) return undefined;
  const preSkip = new DataView(opusHead.buffer, opusHead.byteOffset, opusHead.byteLength).getUint16(10, true);
  // From the end backwards: the first capture pattern that starts a page of this stream ending at the end.
  for (let at = tail.length - HEADER_BYTES; at >= 0; at--) {
    if (tail[at] !== CAPTURE[0]) continue;
    const last = pageAt(tail, at);
    if (!last || last.end !== tail.length || last.serial !== first.serial) continue;
    if (last.granule === NO_GRANULE || last.granule < BigInt(preSkip)) return undefined;
    return Math.round(Number(last.granule - BigInt(preSkip)) / 48);
  }
  return undefined;
}

/** The duration in milliseconds of the Ogg/Opus file; undefined when it is missing, empty or unreadable. */
export async function readOggOpusDurationMs(file: string): Promise<number | undefined> {
  const handle = await open(file, "r").catch(() => undefined);
  if (!handle) return undefined;
  try {
    const { size } = await handle.stat();
    const read = async (position: number, length: number) => {
      const buffer = new Uint8Array(length);
      const { bytesRead } = await handle.read(buffer, 0, length, position);
      return buffer.subarray(0, bytesRead);
    };
    const tailBytes = Math.min(size, MAX_PAGE_BYTES);
    return oggOpusDurationMs(await read(0, Math.min(size, MAX_PAGE_BYTES)), await read(size - tailBytes, tailBytes));
  } finally {
    await handle.close();
  }
}
