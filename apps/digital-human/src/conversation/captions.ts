/**
 * Live captions: what each side said, published to the room as LiveKit text streams on the
 * `lk.transcription` topic with the attributes LiveKit's frontend components read (the transcribed
 * track, a segment id, final), so `useTranscriptions()` in `@livekit/components-react`, or a page's own
 * `room.registerTextStreamHandler("lk.transcription", ...)`, shows them as they are said. The stream's
 * sender is whoever spoke: the digital human for its own lines, the participant for their words.
 */
import { randomUUID } from "node:crypto";
import type { LocalParticipant } from "@livekit/rtc-node";

export const TRANSCRIPTION_TOPIC = "lk.transcription";

export interface Caption {
  /** Who spoke: the identity the caption is shown for. */
  speaker: string;
  /** The sid of the audio track the words were heard on. */
  trackSid: string | undefined;
  text: string;
}

/** The attributes LiveKit's agents framework sets on a final transcription segment. */
export function captionAttributes(caption: Caption, segmentId: string): Record<string, string> {
  return {
    "lk.segment_id": segmentId,
    "lk.transcription_final": "true",
    ...(caption.trackSid ? { "lk.transcribed_track_id": caption.trackSid } : {}),
  };
}

/** Sends one final caption; a segment id of its own unless given. */
export async function publishCaption(room: LocalParticipant, caption: Caption, segmentId = `seg_${randomUUID()}`): Promise<void> {
  const writer = await room.streamText({
    topic: TRANSCRIPTION_TOPIC,
    senderIdentity: caption.speaker,
    attributes: captionAttributes(caption, segmentId),
  });
  await writer.write(caption.text);
  await writer.close();
}
