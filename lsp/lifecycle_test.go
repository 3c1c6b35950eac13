package lsp_test

import (
	"encoding/json"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/heddledbg/heddle/lsp"
)

// TestInitialize checks the capabilities the server announces.
func TestInitialize(t *testing.T) {
	c := start(t, lsp.Options{Poll: -1, Version: "1.2.3"})
	res := c.initialize(t.TempDir(), nil)
	got, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "initialize.golden", string(got)+"\n")
}

// TestRequests checks the answers to requests the server cannot or must not serve.
func TestRequests(t *testing.T) {
	type call struct {
		method string
		params any
	}
	tests := []struct {
		name     string
		init     bool // initialize first
		call     call
		wantCode jsonrpc2.Code
		wantMsg  string
	}{
		{"before initialize", false, call{protocol.MethodTextDocumentCodeLens, map[string]any{}}, jsonrpc2.ServerNotInitialized, "not initialized"},
		{"initialize twice", true, call{protocol.MethodInitialize, map[string]any{}}, jsonrpc2.InvalidRequest, "already initialized"},
		{"executeCommand", true, call{protocol.MethodWorkspaceExecuteCommand, protocol.ExecuteCommandParams{Command: lsp.CommandReplayBug, Arguments: []any{lsp.ReplayArgs{Trace: "/x"}}}},
			jsonrpc2.InvalidRequest, "executes no commands"},
		{"unknown method", true, call{"textDocument/hover", map[string]any{}}, jsonrpc2.MethodNotFound, `"textDocument/hover" is not supported`},
		{"malformed params", true, call{protocol.MethodTextDocumentCodeLens, []int{1, 2}}, jsonrpc2.InvalidParams, "textDocument/codeLens: invalid params"},
		{"not a file URI", true, call{protocol.MethodTextDocumentCodeLens, map[string]any{"textDocument": map[string]any{"uri": "untitled:Untitled-1_test.go"}}},
			jsonrpc2.InvalidParams, "only file URIs are supported"},
		{"missing file", true, call{protocol.MethodTextDocumentCodeLens, map[string]any{"textDocument": map[string]any{"uri": "file:///nonexistent/x_test.go"}}},
			jsonrpc2.InvalidParams, "/nonexistent/x_test.go"},
		{"bad initialization options", false, call{protocol.MethodInitialize, map[string]any{"initializationOptions": map[string]any{"resultDirs": "out"}}},
			jsonrpc2.InvalidParams, "initializationOptions"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := start(t, lsp.Options{Poll: -1})
			if tt.init {
				c.initialize(t.TempDir(), nil)
			}
			_, err := c.conn.Call(c.ctx, tt.call.method, tt.call.params, nil)
			var je *jsonrpc2.Error
			if !errors.As(err, &je) {
				t.Fatalf("%s: error %v, want a JSON-RPC error", tt.call.method, err)
			}
			if je.Code != tt.wantCode || !strings.Contains(je.Message, tt.wantMsg) {
				t.Errorf("%s: error %d %q, want %d with %q", tt.call.method, je.Code, je.Message, tt.wantCode, tt.wantMsg)
			}
		})
	}
}

// TestExit checks how the server ends: lsp.Serve returns nil after shutdown and exit, and
// an error after exit alone or a lost connection.
func TestExit(t *testing.T) {
	tests := []struct {
		name    string
		end     func(c *client)
		wantErr error // nil, or ErrNoShutdown; any other error is checked by wantAny
		wantAny bool
	}{
		{"shutdown and exit", func(c *client) {
			if err := c.server.Shutdown(c.ctx); err != nil {
				c.t.Fatalf("shutdown: %v", err)
			}
			// After shutdown, only exit is valid.
			_, err := c.conn.Call(c.ctx, protocol.MethodTextDocumentCodeLens, map[string]any{}, nil)
			var je *jsonrpc2.Error
			if !errors.As(err, &je) || je.Code != jsonrpc2.InvalidRequest {
				c.t.Errorf("codeLens after shutdown: %v, want an InvalidRequest error", err)
			}
			if err := c.server.Exit(c.ctx); err != nil {
				c.t.Fatalf("exit: %v", err)
			}
		}, nil, false},
		{"exit without shutdown", func(c *client) {
			if err := c.server.Exit(c.ctx); err != nil {
				c.t.Fatalf("exit: %v", err)
			}
		}, lsp.ErrNoShutdown, false},
		{"connection lost", func(c *client) { c.conn.Close() }, nil, true},
		{"connection lost after shutdown", func(c *client) {
			if err := c.server.Shutdown(c.ctx); err != nil {
				c.t.Fatalf("shutdown: %v", err)
			}
			c.conn.Close()
		}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := start(t, lsp.Options{Poll: 10 * time.Millisecond})
			c.initialize(copyWorkspace(t), nil)
			tt.end(c)
			err, ok := c.serveResult(10 * time.Second)
			switch {
			case !ok:
				t.Fatal("lsp.Serve did not return")
			case tt.wantAny:
				if err == nil || !errors.Is(err, net.ErrClosed) && !strings.Contains(err.Error(), "connection to the client lost") {
					t.Errorf("lsp.Serve: %v, want a lost connection", err)
				}
			case !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil):
				t.Errorf("lsp.Serve: %v, want %v", err, tt.wantErr)
			}
		})
	}
}

// TestBadNotifications checks that a notification the server cannot process, which gets no
// answer, is reported to the client's log, except for documents that are not files.
func TestBadNotifications(t *testing.T) {
	tests := []struct {
		name   string
		method string
		params any
		want   string // in the warning; "" for none
	}{
		{"malformed didOpen", protocol.MethodTextDocumentDidOpen, []string{"x"}, "textDocument/didOpen: invalid params"},
		{"change of a closed document", protocol.MethodTextDocumentDidChange,
			map[string]any{"textDocument": map[string]any{"uri": "file:///w/x_test.go"}, "contentChanges": []any{map[string]any{"text": "package x"}}}, "which is not open"},
		{"change ending before its start", protocol.MethodTextDocumentDidChange,
			map[string]any{"textDocument": map[string]any{"uri": "file:///w/open_test.go"}, "contentChanges": []any{map[string]any{
				"range": map[string]any{"start": map[string]any{"line": 1, "character": 0}, "end": map[string]any{"line": 0, "character": 0}}, "text": ""}}},
			"ends before it starts"},
		{"unsaved buffer", protocol.MethodTextDocumentDidOpen,
			map[string]any{"textDocument": map[string]any{"uri": "untitled:Untitled-1", "languageId": "go", "version": 1, "text": "package x"}}, ""},
		{"unknown notification", "$/setTrace", map[string]any{"value": "off"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := start(t, lsp.Options{Poll: -1})
			c.initialize(t.TempDir(), nil)
			c.open("file:///w/open_test.go", "package x\n\nfunc f() {}\n")
			if err := c.conn.Notify(c.ctx, tt.method, tt.params); err != nil {
				t.Fatal(err)
			}
			c.refresh() // answered after the notification was handled
			var warnings []string
			for _, l := range c.logMessages() {
				if l.Type == protocol.MessageTypeWarning {
					warnings = append(warnings, l.Message)
				}
			}
			switch {
			case tt.want == "" && len(warnings) > 0:
				t.Errorf("warnings %q, want none", warnings)
			case tt.want != "" && (len(warnings) != 1 || !strings.Contains(warnings[0], tt.want)):
				t.Errorf("warnings %q, want one saying %q", warnings, tt.want)
			}
		})
	}
}
