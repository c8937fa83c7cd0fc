// The browser side: ask our own backend for a session, join its room with livekit-client, show the
// digital human's face and play its voice, captions of what both of you say, and the session's status
// as the service reports it.
// No API key here: only rtc_url and participant_token.
const { Room, RoomEvent, Track, createLocalVideoTrack, VideoPresets } = window.LivekitClient;

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
// Timings and state for whoever tests this page (performance.now() milliseconds).
const demo = { state: "idle", times: {}, session: null, sessionStatus: null, endReason: null, remoteTracks: [], captions: [] };
window.demo = demo;

$("name").value = params.get("identity") ?? localStorage.getItem("dhs-demo-name") ?? "";

function setState(state, detail = "") {
  demo.state = state;
  $("status").dataset.state = state;
  $("status").textContent = detail ? `${state} (${detail})` : state;
}

function showSession(summary) {
  demo.sessionStatus = summary.status;
  demo.endReason = summary.end_reason;
  $("session-status").dataset.status = summary.status;
  $("session-status").textContent = summary.end_reason ? `${summary.status} (${summary.end_reason})` : summary.status;
}

async function loadDigitalHumans() {
  const response = await fetch("/api/digital-humans");
  if (!response.ok) return;
  const { data } = await response.json();
  const select = $("digital-human");
  select.replaceChildren(
    ...data.map((human) => {
      const option = new Option(human.description ? `${human.name}: ${human.description}` : human.name, human.id);
      option.selected = human.id === params.get("digital_human_id") || (human.default && !params.get("digital_human_id"));
      option.dataset.questions = JSON.stringify(human.suggested_questions ?? []);
      return option;
    }),
  );
  select.addEventListener("change", showSuggestions);
  showSuggestions();
}

// What to ask a digital human that answers from documents (the hotel concierge).
function showSuggestions() {
  const questions = JSON.parse($("digital-human").selectedOptions[0]?.dataset.questions ?? "[]");
  $("suggestions").hidden = questions.length === 0;
  $("suggested-questions").replaceChildren(
    ...questions.map((question) => {
      const item = document.createElement("li");
      item.textContent = question;
      return item;
    }),
  );
}

// The service is the truth about the session: the page asks it, once a second, until the session ends.
async function followSession(id) {
  while (demo.session?.session_id === id) {
    const response = await fetch(`/api/sessions/${id}`);
    if (response.ok) {
      const summary = await response.json();
      showSession(summary);
      if (["completed", "cancelled", "failed"].includes(summary.status)) {
        $("end").disabled = true;
        $("join").disabled = false;
        return;
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

async function join() {
  $("join").disabled = true;
  setState("creating");
  demo.times = { start: performance.now() };
  demo.remoteTracks = [];
  demo.captions = [];
  $("captions").replaceChildren();
  const identity = $("name").value.trim();
  localStorage.setItem("dhs-demo-name", identity);
  const response = await fetch("/api/sessions", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({
      identity: identity || undefined,
      digital_human_id: $("digital-human").value || params.get("digital_human_id") || undefined,
    }),
  });
  if (!response.ok) {
    const body = await response.json().catch(() => ({}));
    setState("error", `could not create a session: ${body.error ?? response.status}`);
    $("join").disabled = false;
    return;
  }
  demo.session = await response.json();
  demo.times.created = performance.now();
  $("session-id").textContent = demo.session.session_id;
  showSession({ status: "created", end_reason: null });
  $("end").disabled = false;
  void followSession(demo.session.session_id);

  const room = new Room({ adaptiveStream: false, dynacast: false });
  demo.room = room;
  room.on(RoomEvent.TrackSubscribed, (track, _publication, participant) => {
    demo.times[`${track.kind}Subscribed`] ??= performance.now();
    demo.remoteTracks.push({ kind: track.kind, participant: participant.identity, participantKind: participant.kind });
    const element = track.attach();
    if (track.kind === Track.Kind.Video) {
      $("remote").replaceChildren(element);
      element.muted = true;
      element.requestVideoFrameCallback(() => {
        demo.times.firstVideoFrame ??= performance.now();
        setState("talking");
      });
    } else {
      element.id = "digital-human-voice";
      demo.remoteAudioTrack = track.mediaStreamTrack;
      document.body.append(element);
    }
  });
  // Live captions: the digital human publishes both sides' words as LiveKit text streams on the
  // lk.transcription topic (as LiveKit's agents do); the transcribed track says whose words they are.
  room.registerTextStreamHandler("lk.transcription", async (reader) => {
    const text = (await reader.readAll()).trim();
    if (!text) return;
    const track = reader.info.attributes?.["lk.transcribed_track_id"];
    const mine = [...room.localParticipant.trackPublications.values()].some((publication) => publication.trackSid === track);
    const who = mine ? "you" : "digital_human";
    demo.captions.push({ who, text, at: performance.now() });
    const line = document.createElement("p");
    const name = document.createElement("b");
    name.textContent = mine ? "You" : ($("digital-human").selectedOptions[0]?.text.split(":")[0] ?? "Digital human");
    line.append(name, text);
    $("captions").append(line);
    $("captions").scrollTop = $("captions").scrollHeight;
  });
  // A digital human's client tool (docs/frontend.md, "Client tools"): its LLM calls `show_card` with a
  // title and a text, and the page shows them. The arguments come from the LLM, which the participant
  // talks to: they are shown as text, never as HTML.
  demo.cards = [];
  room.registerRpcMethod("show_card", async ({ payload }) => {
    const { title, text } = JSON.parse(payload);
    demo.cards.push({ title: String(title ?? ""), text: String(text ?? "") });
    const card = document.createElement("article");
    card.className = "card";
    const heading = document.createElement("h3");
    heading.textContent = String(title ?? "");
    const body = document.createElement("p");
    body.textContent = String(text ?? "");
    card.append(heading, body);
    $("cards").replaceChildren(card);
    return JSON.stringify({ shown: true });
  });
  // A digital human that records the session says so on its participant (the contract's guide,
  // "Recordings"): `dhs.recording` = `audio` while it records, set before its first word. People must
  // know they are recorded, so the page shows it for as long as the attribute says so.
  const showRecording = () => {
    demo.recording =
      room.state === "connected" &&
      [...room.remoteParticipants.values()].some((p) => p.isAgent && p.attributes["dhs.recording"] === "audio");
    $("recording").hidden = !demo.recording;
  };
  room.on(RoomEvent.ParticipantAttributesChanged, showRecording);
  room.on(RoomEvent.ParticipantConnected, showRecording);
  room.on(RoomEvent.ParticipantDisconnected, showRecording);
  room.on(RoomEvent.Disconnected, (reason) => {
    showRecording();
    demo.disconnectReason = reason;
    demo.camera?.stop();
    setState("disconnected", String(reason));
    $("leave").disabled = true;
    $("local").replaceChildren();
  });

  setState("connecting");
  await room.connect(demo.session.rtc_url, demo.session.participant_token);
  demo.times.connected = performance.now();
  showRecording();
  setState("connected");
  $("leave").disabled = false;
  // The digital human listens and does not look: the page sends the microphone only, and shows the
  // camera to the user alone (no upload, and no encoding of it beside the digital human's video).
  await room.localParticipant.setMicrophoneEnabled(true);
  const camera = await createLocalVideoTrack({ resolution: VideoPresets.h360.resolution }).catch(() => undefined);
  if (camera) {
    demo.camera = camera;
    $("local").replaceChildren(camera.attach());
  }
}

async function leave() {
  $("leave").disabled = true;
  await demo.room?.disconnect();
}

async function end() {
  $("end").disabled = true;
  // Ending the session through our backend deletes the room; LiveKit disconnects us.
  const response = await fetch(`/api/sessions/${demo.session.session_id}/end`, { method: "POST" });
  if (response.ok) showSession(await response.json());
}

const failed = (error) => setState("error", error.message);
$("join-form").addEventListener("submit", (event) => {
  event.preventDefault();
  join().catch(failed);
});
$("leave").addEventListener("click", () => leave().catch(failed));
$("end").addEventListener("click", () => end().catch(failed));
// Join waits for the list: a join before it would get the deployment's default, not the one shown chosen.
loadDigitalHumans()
  .catch(() => undefined)
  .finally(() => {
    $("join").disabled = false;
  });
