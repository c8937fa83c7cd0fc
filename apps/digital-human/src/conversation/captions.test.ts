import type { LocalParticipant } from "@livekit/rtc-node";
import { describe, expect, it } from "vitest";
import { captionAttributes, publishCaption, TRANSCRIPTION_TOPIC } from "./captions.js";

/** A local participant that records the text streams it is asked to open. */
function recordingParticipant() {
  const streams: { options: Record<string, unknown>; chunks: string[]; closed: boolean }[] = [];
  const participant = {
    async streamText(options: Record<string, unknown>) {
      const stream = { options, chunks: [] as string[], closed: false };
      streams.push(stream);
      return {
        write: async (text: string) => {
          stream.chunks.push(text);
        },
        close: async () => {
          stream.closed = true;
        },
      };
    },
  };
  return { participant: participant as unknown as LocalParticipant, streams };
}

describe("captions", () => {
  it("send each line as one closed text stream on lk.transcription, from whoever spoke, final, with its track", async () => {
    const { participant, streams } = recordingParticipant();
    await publishCaption(participant, { speaker: "ada", trackSid: "TR_mic", text: "book a table" }, "seg_1");
    expect(streams).toEqual([
      {
        options: {
          topic: TRANSCRIPTION_TOPIC,
          senderIdentity: "ada",
          attributes: { "lk.segment_id": "seg_1", "lk.transcription_final": "true", "lk.transcribed_track_id": "TR_mic" },
        },
        chunks: ["book a table"],
        closed: true,
      },
    ]);
  });

  it("give every caption a segment id of its own, and leave out a track that is not known", async () => {
    const { participant, streams } = recordingParticipant();
    await publishCaption(participant, { speaker: "dh", trackSid: undefined, text: "Hello." });
    await publishCaption(participant, { speaker: "dh", trackSid: undefined, text: "Hello." });
    const ids = streams.map((s) => (s.options.attributes as Record<string, string>)["lk.segment_id"]);
    expect(new Set(ids).size).toBe(2);
    expect(captionAttributes({ speaker: "dh", trackSid: undefined, text: "x" }, "s")).not.toHaveProperty("lk.transcribed_track_id");
  });
});
