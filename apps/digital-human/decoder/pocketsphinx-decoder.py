"""A PocketSphinx decoder kept warm for a session's turns, run by pocketsphinx-transcriber.ts.

Loading the US English model takes about half a second of a core; decoding a turn as it is spoken, rather
than all of it once it has ended, leaves only the last fraction of a second to decode when the turn ends.
So the job runs one of these for the whole session, its model loaded once, and feeds it each turn's audio
as the VAD hears it.

Messages on standard input, each a one-byte kind, a 4-byte little-endian length, then that many bytes:
  S  start a turn                      (no payload)
  A  audio of the turn                 (16-bit little-endian mono PCM at 16 kHz)
  E  end the turn                      (no payload): one line on standard output, the words heard or empty
Debian's python3-pocketsphinx binds the same libpocketsphinx as its pocketsphinx_continuous.
"""
import struct
import sys

from pocketsphinx import Decoder


def main() -> None:
    model = sys.argv[1]
    config = Decoder.default_config()
    config.set_string("-hmm", f"{model}/en-us")
    config.set_string("-lm", f"{model}/en-us.lm.bin")
    config.set_string("-dict", f"{model}/cmudict-en-us.dict")
    config.set_string("-logfn", "/dev/null")
    # Without the flat second pass, a turn's words are ready about 0.1 s after its end instead of 0.2 s,
    # for a third less CPU; measured on the unit test's sentences, recall 0.85 of Flite's words instead
    # of 0.88, 0.41 of eSpeak's instead of 0.34.
    config.set_boolean("-fwdflat", False)
    decoder = Decoder(config)
    read = sys.stdin.buffer.read
    in_turn = False
    while True:
        header = read(5)
        if len(header) < 5:
            return
        kind = header[:1]
        (length,) = struct.unpack("<I", header[1:])
        payload = read(length) if length else b""
        if kind == b"S":
            # A turn left open (its job moved on without ending it) is dropped, not mixed into this one.
            if in_turn:
                decoder.end_utt()
            decoder.start_utt()
            in_turn = True
        elif kind == b"A" and in_turn:
            decoder.process_raw(payload, False, False)
        elif kind == b"E":
            text = ""
            if in_turn:
                decoder.end_utt()
                hypothesis = decoder.hyp()
                text = hypothesis.hypstr if hypothesis is not None else ""
            in_turn = False
            sys.stdout.write(text.replace("\n", " ") + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
