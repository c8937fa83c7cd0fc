/** Ogg/Opus files for tests, built page by page as ffmpeg writes them (RFC 3533, RFC 7845); CRCs left 0, as nothing here reads them. */

/** One Ogg page holding the packets, each laced (255-byte segments, then the rest). */
export function oggPage(
  granule: bigint,
  packets: Uint8Array[],
  options: { serial?: number; sequence?: number; flags?: number } = {},
): Uint8Array {
  const lacing: number[] = [];
  for (const packet of packets) {
    let left = packet.length;
    while (left >= 255) {
      lacing.push(255);
      left -= 255;
    }
    lacing.push(left);
  }
  const body = packets.reduce((n, p) => n + p.length, 0);
  const bytes = new Uint8Array(27 + lacing.length + body);
  const view = new DataView(bytes.buffer);
  bytes.set([0x4f, 0x67, 0x67, 0x53], 0);
  bytes[5] = options.flags ?? 0;
  view.setBigUint64(6, granule, true);
  view.setUint32(14, options.serial ?? 0x1234, true);
  view.setUint32(18, options.sequence ?? 0, true);
  bytes[26] = lacing.length;
  bytes.set(lacing, 27);
  let at = 27 + lacing.length;
  for (const packet of packets) {
    bytes.set(packet, at);
    at += packet.length;
  }
  return bytes;
}

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.length;
  }
  return bytes;
}

function opusHead(preSkip: number): Uint8Array {
  const head = new Uint8Array(19);
  head.set(new TextEncoder().encode("OpusHead"), 0);
  const view = new DataView(head.buffer);
  head[8] = 1;
  head[9] = 2; // stereo
  view.setUint16(10, preSkip, true);
  view.setUint32(12, 48_000, true);
  return head;
}

/** OpusHead, OpusTags, then an audio page for each granule, the last one flagged end of stream. */
export function oggOpusFile(preSkip: number, granules: bigint[], packetBytes = 300): Uint8Array {
  const tags = concatBytes(new TextEncoder().encode("OpusTags"), new Uint8Array(8));
  const audio = granules.map((granule, i) =>
    oggPage(granule, [new Uint8Array(packetBytes).fill(0x4f), new Uint8Array(packetBytes).fill(7)], {
      sequence: i + 2,
      flags: i === granules.length - 1 ? 4 : 0,
    }),
  );
  return concatBytes(oggPage(0n, [opusHead(preSkip)], { flags: 2 }), oggPage(0n, [tags], { sequence: 1 }), ...audio);
}
