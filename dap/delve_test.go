package dap

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"testing"
	"time"

	godap "github.com/google/go-dap"

	"github.com/heddledbg/heddle/debugger"
)

// A client's request that reaches Delve while the debuggee runs is answered with Delve's
// DebuggeeIsRunning error; heddle answers the client quietly, since the next stop answers
// it again. Other errors of Delve's are shown to the user.
func TestDelveRunning(t *testing.T) {
	tests := []struct {
		name     string
		id       int
		showUser bool
	}{
		{"debuggee is running", delveRunning, false},
		{"another error", 2004, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ours, theirs := net.Pipe()
			defer theirs.Close()
			d := &delve{conn: ours, w: &writer{w: ours}, pending: map[int]chan *message{},
				events: make(chan debugger.Event, 1), initialized: make(chan struct{}), done: make(chan struct{})}
			go d.read()
			defer ours.Close()
			// Delve's side: service/dap answers a request it cannot serve now with an
			// ErrorResponse whose body.error carries the id.
			go func() {
				req, err := newReader(theirs).read()
				if err != nil {
					return
				}
				resp := godap.ErrorResponse{Response: godap.Response{ProtocolMessage: godap.ProtocolMessage{Type: "response"},
					RequestSeq: req.Seq, Command: req.Command, Message: fmt.Sprintf("Unable to process `%s`", req.Command)}}
				resp.Body.Error = &godap.ErrorMessage{Id: tt.id, Format: "Unable to process `stackTrace`: debuggee is running"}
				godap.WriteProtocolMessage(theirs, &resp)
			}()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_, err := d.Stack(ctx, 1, 10)
			if err == nil {
				t.Fatal("Stack succeeded, want Delve's error")
			}
			if got := errors.Is(err, debugger.ErrNotStopped); got == tt.showUser {
				t.Errorf("errors.Is(%v, ErrNotStopped) = %v", err, got)
			}
			var out bytes.Buffer
			s := &Session{client: &writer{w: &out}}
			s.failErr(&message{Seq: 7, Command: "stackTrace"}, err)
			m, err := newReader(&out).read()
			if err != nil {
				t.Fatal(err)
			}
			var b struct {
				Error struct {
					ShowUser bool `json:"showUser"`
				} `json:"error"`
			}
			if err := json.Unmarshal(m.Body, &b); err != nil {
				t.Fatal(err)
			}
			if m.Success || m.RequestSeq != 7 || b.Error.ShowUser != tt.showUser {
				t.Errorf("the client's response: success=%v request_seq=%d showUser=%v, want failure to 7 with showUser=%v", m.Success, m.RequestSeq, b.Error.ShowUser, tt.showUser)
			}
		})
	}
}
