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

	ended, err := api.EndSessionWithResponse(ctx, session.Id)
	check("end", err)
	if ended.JSON200 == nil {
		fail("end", ended.StatusCode(), ended.Body)
	}
	out.EndedStatus = string(ended.JSON200.Status)

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
	check("report", json.NewEncoder(os.Stdout).Encode(out))
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
