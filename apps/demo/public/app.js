// The browser side: ask our own backend for a session, join its room with livekit-client, show the
// digital human's face and play its voice. No API key here: only rtc_url and participant_token.
const { Room, RoomEvent, Track } = window.LivekitClient;

const statusEl = document.getElementById("status");
const joinButton = document.getElementById("join");
const leaveButton = document.getElementById("leave");
// Timings and state for whoever tests this page (performance.now() milliseconds).
const demo = { state: "idle", times: {}, session: null, remoteTracks: [] };
window.demo = demo;

function setState(state, detail = "") {
  demo.state = state;
  statusEl.dataset.state = state;
  statusEl.textContent = detail ? `${state} (${detail})` : state;
}

async function join() {
  joinButton.disabled = true;
  setState("creating");
  demo.times.start = performance.now();
  const params = new URLSearchParams(location.search);
  const response = await fetch("/api/sessions", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ digital_human_id: params.get("digital_human_id") ?? undefined, identity: params.get("identity") ?? undefined }),
  });
  if (!response.ok) {
    setState("error", `create failed: ${response.status}`);
    joinButton.disabled = false;
    return;
  }
  demo.session = await response.json();
  demo.times.created = performance.now();

  const room = new Room({ adaptiveStream: false, dynacast: false });
  demo.room = room;
  room.on(RoomEvent.TrackSubscribed, (track, _publication, participant) => {
    demo.remoteTracks.push({ kind: track.kind, participant: participant.identity, participantKind: participant.kind });
    const element = track.attach();
    if (track.kind === Track.Kind.Video) {
      document.getElementById("remote").replaceChildren(element);
      element.muted = true;
      element.requestVideoFrameCallback(() => {
        demo.times.firstVideoFrame ??= performance.now();
        setState("talking");
      });
    } else {
      document.body.append(element);
    }
  });
  room.on(RoomEvent.Disconnected, (reason) => {
    demo.disconnectReason = reason;
    setState("disconnected", String(reason));
    leaveButton.disabled = true;
    joinButton.disabled = false;
  });

  setState("connecting");
  await room.connect(demo.session.rtc_url, demo.session.participant_token);
  demo.times.connected = performance.now();
  setState("connected");
  leaveButton.disabled = false;
  // The browser publishes the user's camera and microphone, as a real page would.
  await room.localParticipant.enableCameraAndMicrophone();
  const camera = room.localParticipant.getTrackPublication(Track.Source.Camera);
  if (camera?.track) document.getElementById("local").replaceChildren(camera.track.attach());
}

async function leave() {
  leaveButton.disabled = true;
  // Ending the session through our backend deletes the room; LiveKit disconnects us.
  await fetch(`/api/sessions/${demo.session.session_id}/end`, { method: "POST" });
}

joinButton.addEventListener("click", () => join().catch((error) => setState("error", error.message)));
leaveButton.addEventListener("click", () => leave().catch((error) => setState("error", error.message)));
