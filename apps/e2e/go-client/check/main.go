// Command check drives the API through the Go client that oapi-codegen generates from openapi/v1.yaml
// (into package dhs beside it), as a Go backend team would: it exits non-zero with the step that failed,
// and prints what it saw as one JSON object for the test that runs it to compare with the server's view.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"time"

	"example.com/app/dhs"
	"github.com/google/uuid"
)

type report struct {
	SessionID      string `json:"session_id"`
	RoomName       string `json:"room_name"`
	Replayed       string `json:"replayed"`
	ReplayedSameID bool   `json:"replayed_same_id"`
	ReusedKeyCode  string `json:"reused_key_code"`
	GotStatus      string `json:"got_status"`
	Listed         bool   `json:"listed"`
	EndedStatus    string `json:"ended_status"`
	BadKeyCode     string `json:"bad_key_code"`
	InvalidCode    string `json:"invalid_code"`
	InvalidKnown   bool   `json:"invalid_code_known"`
	// A digital human of the account's own: made, a session of it, changed, cleared, deleted.
	PersonaID        string `json:"persona_id"`
	PersonaKind      string `json:"persona_kind"`
	PersonaSessionID string `json:"persona_session_id"`
	PersonaRenamed   string `json:"persona_renamed"`
	PersonaCleared   bool   `json:"persona_greeting_cleared"`
	PersonaDeleted   bool   `json:"persona_deleted"`
	// Driving the session from the backend: an utterance (said, replayed, read), a note, an interruption,
	// and an utterance refused once the session has ended.
	UtteranceID          string   `json:"utterance_id"`
	UtteranceStatus      string   `json:"utterance_status"`
	SayReplayed          string   `json:"say_replayed"`
	SayReplayedSameID    bool     `json:"say_replayed_same_id"`
	GotUtteranceStatus   string   `json:"got_utterance_status"`
	ContextNoteID        string   `json:"context_note_id"`
	ContextNoteStatus    string   `json:"context_note_status"`
	InterruptedIDs       []string `json:"interrupted_utterance_ids"`
	InterruptedStatus    string   `json:"interrupted_utterance_status"`
	SayAfterEndStatus    int      `json:"say_after_end_status"`
	SayAfterEndCode      string   `json:"say_after_end_code"`
	SayAfterEndCodeKnown bool     `json:"say_after_end_code_known"`
	// A webhook tool, with the test key: its endpoint (the test's receiver), a digital human with it, as the
	// service answers it back, a test session of it, the test helper's call and the session's calls.
	ToolEndpointID      string         `json:"tool_endpoint_id"`
	ToolEndpointSecret  string         `json:"tool_endpoint_secret"`
	ToolPersonaID       string         `json:"tool_persona_id"`
	ToolType            string         `json:"tool_type"`
	ToolEndpointEchoed  bool           `json:"tool_endpoint_echoed"`
	ToolTimeoutMs       int32          `json:"tool_timeout_ms"`
	ToolSessionID       string         `json:"tool_session_id"`
	ToolCallID          string         `json:"tool_call_id"`
	ToolCallType        string         `json:"tool_call_type"`
	ToolCallStatus      string         `json:"tool_call_status"`
	ToolCallSucceeded   bool           `json:"tool_call_succeeded"`
	ToolCallResult      any            `json:"tool_call_result"`
	ToolCallArguments   map[string]any `json:"tool_call_arguments"`
	ToolCallsListed     []string       `json:"tool_calls_listed"`
	ToolSessionEndState string         `json:"tool_session_ended_status"`
}

func fail(step string, status int, body []byte) {
	fmt.Fprintf(os.Stderr, "%s: HTTP %d: %s\n", step, status, body)
	os.Exit(1)
}

// check stops at an error that is not an HTTP answer (connection, decoding).
func check(step string, err error) {
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", step, err)
		os.Exit(1)
	}
}

// client authenticates with apiKey, the way the README's example does.
func client(baseURL, apiKey string) *dhs.ClientWithResponses {
	c, err := dhs.NewClientWithResponses(baseURL, dhs.WithRequestEditorFn(func(_ context.Context, req *http.Request) error {
		req.Header.Set("Authorization", "Bearer "+apiKey)
		return nil
	}))
	if err != nil {
		fmt.Fprintln(os.Stderr, "client:", err)
		os.Exit(1)
	}
	return c
}

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	api := client(os.Getenv("DHS_URL"), os.Getenv("DHS_API_KEY"))
	var out report

	key := dhs.CreateSessionParams{IdempotencyKey: uuid.NewString()}
	body := dhs.CreateSessionJSONRequestBody{Tags: &[]string{"go-client"}}
	created, err := api.CreateSessionWithResponse(ctx, &key, body)
	check("create", err)
	if created.JSON201 == nil {
		fail("create", created.StatusCode(), created.Body)
	}
	session := created.JSON201
	out.SessionID, out.RoomName = session.Id.String(), session.RoomName
	if session.ParticipantToken == nil || *session.ParticipantToken == "" || session.RtcUrl == "" {
		fail("create: no token or rtc_url", created.StatusCode(), created.Body)
	}

	replay, err := api.CreateSessionWithResponse(ctx, &key, body)
	check("replay", err)
	if replay.JSON201 == nil {
		fail("replay", replay.StatusCode(), replay.Body)
	}
	out.Replayed = replay.HTTPResponse.Header.Get("Idempotent-Replayed")
	out.ReplayedSameID = replay.JSON201.Id == session.Id

	reused, err := api.CreateSessionWithResponse(ctx, &key, dhs.CreateSessionJSONRequestBody{Tags: &[]string{"another"}})
	check("reused key", err)
	if reused.JSON409 == nil {
		fail("reused key", reused.StatusCode(), reused.Body)
	}
	out.ReusedKeyCode = reused.JSON409.Code

	got, err := api.GetSessionWithResponse(ctx, session.Id)
	check("get", err)
	if got.JSON200 == nil {
		fail("get", got.StatusCode(), got.Body)
	}
	out.GotStatus = string(got.JSON200.Status)

	limit := int32(100)
	list, err := api.ListSessionsWithResponse(ctx, &dhs.ListSessionsParams{Limit: &limit})
	check("list", err)
	if list.JSON200 == nil {
		fail("list", list.StatusCode(), list.Body)
	}
	for _, item := range list.JSON200.Data {
		out.Listed = out.Listed || item.Id == session.Id
	}

	converse(ctx, api, session.Id, &out)

	ended, err := api.EndSessionWithResponse(ctx, session.Id)
	check("end", err)
	if ended.JSON200 == nil {
		fail("end", ended.StatusCode(), ended.Body)
	}
	out.EndedStatus = string(ended.JSON200.Status)

	late, err := api.SayWithResponse(ctx, session.Id, &dhs.SayParams{IdempotencyKey: uuid.NewString()},
		dhs.SayJSONRequestBody{Text: "Is anyone still there?"})
	check("say after the end", err)
	if late.JSON409 == nil {
		fail("say after the end", late.StatusCode(), late.Body)
	}
	out.SayAfterEndStatus = late.StatusCode()
	out.SayAfterEndCode = late.JSON409.Code
	out.SayAfterEndCodeKnown = late.JSON409.Code == string(dhs.ErrorCodeSessionEnded)

	stranger := client(os.Getenv("DHS_URL"), "dhs_not_a_key_of_this_service")
	denied, err := stranger.GetSessionWithResponse(ctx, session.Id)
	check("bad key", err)
	if denied.JSON401 == nil {
		fail("bad key", denied.StatusCode(), denied.Body)
	}
	out.BadKeyCode = denied.JSON401.Code

	blank := ""
	invalid, err := api.CreateSessionWithResponse(ctx, &dhs.CreateSessionParams{IdempotencyKey: uuid.NewString()},
		dhs.CreateSessionJSONRequestBody{ParticipantIdentity: &blank})
	check("invalid body", err)
	if invalid.JSON422 == nil {
		fail("invalid body", invalid.StatusCode(), invalid.Body)
	}
	// The code is a plain string: compared with the generated constant, or with any code added later.
	out.InvalidCode = invalid.JSON422.Code
	out.InvalidKnown = invalid.JSON422.Code == string(dhs.ErrorCodeValidationFailed)

	persona(ctx, api, &out)
	// callTestTool is a test helper: the tool's endpoint, digital human and session are the test key's.
	tool(ctx, client(os.Getenv("DHS_URL"), os.Getenv("DHS_TEST_API_KEY")), os.Getenv("DHS_TOOL_URL"), &out)
	check("report", json.NewEncoder(os.Stdout).Encode(out))
}

// converse drives the session as a backend that brings its own brain would, before anyone has joined
// (both are accepted from the session's creation and wait for the digital human): it says something with
// an Idempotency-Key, retries it with the same key, reads the utterance back, tells the digital human
// something, and interrupts, which drops the utterance still queued.
func converse(ctx context.Context, api *dhs.ClientWithResponses, sessionID dhs.SessionId, out *report) {
	key := dhs.SayParams{IdempotencyKey: uuid.NewString()}
	line := dhs.SayJSONRequestBody{Text: "Your order shipped this morning; it arrives on Thursday."}
	said, err := api.SayWithResponse(ctx, sessionID, &key, line)
	check("say", err)
	if said.JSON202 == nil {
		fail("say", said.StatusCode(), said.Body)
	}
	out.UtteranceID, out.UtteranceStatus = said.JSON202.Id, string(said.JSON202.Status)

	// The same key and body, as after a timeout: the same utterance, said once.
	again, err := api.SayWithResponse(ctx, sessionID, &key, line)
	check("say again", err)
	if again.JSON202 == nil {
		fail("say again", again.StatusCode(), again.Body)
	}
	out.SayReplayed = again.HTTPResponse.Header.Get("Idempotent-Replayed")
	out.SayReplayedSameID = again.JSON202.Id == said.JSON202.Id

	got, err := api.GetUtteranceWithResponse(ctx, sessionID, said.JSON202.Id)
	check("get the utterance", err)
	if got.JSON200 == nil {
		fail("get the utterance", got.StatusCode(), got.Body)
	}
	out.GotUtteranceStatus = string(got.JSON200.Status)

	respond := false
	note, err := api.AddSessionContextWithResponse(ctx, sessionID, &dhs.AddSessionContextParams{IdempotencyKey: uuid.NewString()},
		dhs.AddSessionContextJSONRequestBody{Text: "The caller is Ines Bauer; her order 4417 shipped today.", Respond: &respond})
	check("add context", err)
	if note.JSON202 == nil {
		fail("add context", note.StatusCode(), note.Body)
	}
	out.ContextNoteID, out.ContextNoteStatus = note.JSON202.Id, string(note.JSON202.Status)

	stopped, err := api.InterruptSessionWithResponse(ctx, sessionID)
	check("interrupt", err)
	if stopped.JSON200 == nil {
		fail("interrupt", stopped.StatusCode(), stopped.Body)
	}
	out.InterruptedIDs = stopped.JSON200.UtteranceIds

	after, err := api.GetUtteranceWithResponse(ctx, sessionID, said.JSON202.Id)
	check("get the interrupted utterance", err)
	if after.JSON200 == nil {
		fail("get the interrupted utterance", after.StatusCode(), after.Body)
	}
	out.InterruptedStatus = string(after.JSON200.Status)
}

// persona makes a digital human of the account's own and a session of it, renames it, clears its greeting
// and deletes it. A field is cleared by sending null, which the generated struct's omitempty pointers cannot
// say: that body is sent as JSON (the ...WithBody variant).
func persona(ctx context.Context, api *dhs.ClientWithResponses, out *report) {
	greeting := "Hello {participant_identity}, {name} here."
	voice := "slt"
	made, err := api.CreateDigitalHumanWithResponse(ctx, &dhs.CreateDigitalHumanParams{IdempotencyKey: uuid.NewString()},
		dhs.CreateDigitalHumanJSONRequestBody{Name: "Go Maya", Greeting: &greeting, Voice: &voice})
	check("create digital human", err)
	if made.JSON201 == nil {
		fail("create digital human", made.StatusCode(), made.Body)
	}
	out.PersonaID, out.PersonaKind = made.JSON201.Id.String(), string(made.JSON201.Kind)

	session, err := api.CreateSessionWithResponse(ctx, &dhs.CreateSessionParams{IdempotencyKey: uuid.NewString()},
		dhs.CreateSessionJSONRequestBody{DigitalHumanId: &made.JSON201.Id})
	check("session of the digital human", err)
	if session.JSON201 == nil {
		fail("session of the digital human", session.StatusCode(), session.Body)
	}
	out.PersonaSessionID = session.JSON201.Id.String()
	ended, err := api.EndSessionWithResponse(ctx, session.JSON201.Id)
	check("end the session of the digital human", err)
	if ended.JSON200 == nil {
		fail("end the session of the digital human", ended.StatusCode(), ended.Body)
	}

	name := "Go Mia"
	renamed, err := api.UpdateDigitalHumanWithResponse(ctx, made.JSON201.Id, dhs.UpdateDigitalHumanJSONRequestBody{Name: &name})
	check("rename", err)
	if renamed.JSON200 == nil {
		fail("rename", renamed.StatusCode(), renamed.Body)
	}
	out.PersonaRenamed = renamed.JSON200.Name

	cleared, err := api.UpdateDigitalHumanWithBodyWithResponse(ctx, made.JSON201.Id, "application/json",
		bytes.NewReader([]byte(`{"greeting": null}`)))
	check("clear the greeting", err)
	if cleared.JSON200 == nil {
		fail("clear the greeting", cleared.StatusCode(), cleared.Body)
	}
	out.PersonaCleared = cleared.JSON200.Greeting == nil

	deleted, err := api.DeleteDigitalHumanWithResponse(ctx, made.JSON201.Id)
	check("delete the digital human", err)
	if deleted.JSON200 == nil {
		fail("delete the digital human", deleted.StatusCode(), deleted.Body)
	}
	out.PersonaDeleted = bool(deleted.JSON200.Deleted)
}

// tool gives a digital human a webhook tool and calls it with the test helper, as a backend team builds its
// tool's endpoint without an LLM or a room: it registers the endpoint (receiverURL, which answers the call),
// makes the digital human with the tool, reads the tool back, makes a test session of it, calls the tool
// with callTestTool (the service posts the call, signed, to the endpoint and answers what it recorded),
// lists the session's calls and ends the session. Tool is a oneOf with a discriminator, which oapi-codegen
// makes an opaque union: a tool is built with FromWebhookTool (which sets its type) and read with
// ValueByDiscriminator.
func tool(ctx context.Context, api *dhs.ClientWithResponses, receiverURL string, out *report) {
	events := []dhs.WebhookEventSelector{dhs.WebhookEventSelectorSessionToolCalled}
	endpoint, err := api.CreateWebhookEndpointWithResponse(ctx, dhs.CreateWebhookEndpointJSONRequestBody{Url: receiverURL, EventTypes: &events})
	check("create the tool's endpoint", err)
	if endpoint.JSON201 == nil || endpoint.JSON201.Secret == nil {
		fail("create the tool's endpoint", endpoint.StatusCode(), endpoint.Body)
	}
	out.ToolEndpointID, out.ToolEndpointSecret = endpoint.JSON201.Id, *endpoint.JSON201.Secret

	parameters := dhs.ToolParameters{
		"type": "object",
		"properties": map[string]any{
			"order_id": map[string]any{"type": "string", "description": "The order's id, as the customer reads it out."},
		},
		"required": []string{"order_id"},
	}
	var orderStatus dhs.Tool
	check("build the tool", orderStatus.FromWebhookTool(dhs.WebhookTool{
		Name:        "order_status",
		Description: "Looks up an order by its id and answers its status.",
		Parameters:  &parameters,
		EndpointId:  endpoint.JSON201.Id,
	}))
	made, err := api.CreateDigitalHumanWithResponse(ctx, &dhs.CreateDigitalHumanParams{IdempotencyKey: uuid.NewString()},
		dhs.CreateDigitalHumanJSONRequestBody{Name: "Go Tess", Tools: &[]dhs.Tool{orderStatus}})
	check("create the digital human with a tool", err)
	if made.JSON201 == nil {
		fail("create the digital human with a tool", made.StatusCode(), made.Body)
	}
	out.ToolPersonaID = made.JSON201.Id.String()
	if len(made.JSON201.Tools) != 1 {
		fail("the digital human's tools", made.StatusCode(), made.Body)
	}
	answered, err := made.JSON201.Tools[0].ValueByDiscriminator()
	check("read the digital human's tool", err)
	switch t := answered.(type) {
	case dhs.WebhookTool:
		out.ToolType, out.ToolEndpointEchoed = string(t.Type), t.EndpointId == endpoint.JSON201.Id
		if t.TimeoutMs != nil {
			out.ToolTimeoutMs = *t.TimeoutMs
		}
	default:
		fail(fmt.Sprintf("the digital human's tool is a %T", t), made.StatusCode(), made.Body)
	}

	session, err := api.CreateSessionWithResponse(ctx, &dhs.CreateSessionParams{IdempotencyKey: uuid.NewString()},
		dhs.CreateSessionJSONRequestBody{DigitalHumanId: &made.JSON201.Id, Tags: &[]string{"go-client-tool"}})
	check("test session with the tool", err)
	if session.JSON201 == nil {
		fail("test session with the tool", session.StatusCode(), session.Body)
	}
	out.ToolSessionID = session.JSON201.Id.String()

	called, err := api.CallTestToolWithResponse(ctx, session.JSON201.Id,
		dhs.CallTestToolJSONRequestBody{Name: "order_status", Arguments: &dhs.ToolArguments{"order_id": "A-1"}})
	check("call the tool", err)
	if called.JSON200 == nil {
		fail("call the tool", called.StatusCode(), called.Body)
	}
	call := called.JSON200
	out.ToolCallID, out.ToolCallType, out.ToolCallStatus = call.Id, string(call.Type), string(call.Status)
	out.ToolCallSucceeded = call.Status == dhs.ToolCallStatusSucceeded
	out.ToolCallResult, out.ToolCallArguments = call.Result, call.Arguments

	calls, err := api.ListSessionToolCallsWithResponse(ctx, session.JSON201.Id)
	check("list the tool calls", err)
	if calls.JSON200 == nil {
		fail("list the tool calls", calls.StatusCode(), calls.Body)
	}
	out.ToolCallsListed = []string{}
	for _, item := range calls.JSON200.Data {
		out.ToolCallsListed = append(out.ToolCallsListed, item.Id)
	}

	ended, err := api.EndSessionWithResponse(ctx, session.JSON201.Id)
	check("end the test session with the tool", err)
	if ended.JSON200 == nil {
		fail("end the test session with the tool", ended.StatusCode(), ended.Body)
	}
	out.ToolSessionEndState = string(ended.JSON200.Status)
}
