// Command check drives the API through the Go client that oapi-codegen generates from openapi/v1.yaml
// (into package dhs beside it), as a Go backend team would: it exits non-zero with the step that failed,
// and prints what it saw as one JSON object for the test that runs it to compare with the server's view.
package main

import (
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

	check("report", json.NewEncoder(os.Stdout).Encode(out))
}
