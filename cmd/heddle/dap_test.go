package main

import (
	"bufio"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	godap "github.com/google/go-dap"
)

// heddle dap -listen serves DAP on a loopback port, like dlv dap, and refuses other addresses.
func TestDAPListen(t *testing.T) {
	if _, _, code := heddle(t, "", "dap", "-listen", "0.0.0.0:0"); code != exitUsage {
		t.Errorf("dap -listen 0.0.0.0:0 exited %d, want %d", code, exitUsage)
	}
	cmd := exec.Command(heddleBin, "dap", "-listen", "127.0.0.1:0")
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(out).ReadString('\n')
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "DAP server listening at: ")
	if err != nil || !ok {
		t.Fatalf("first line %q, %v; want the address", line, err)
	}
	conn, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(30 * time.Second))
	godap.WriteProtocolMessage(conn, &godap.InitializeRequest{Request: godap.Request{ProtocolMessage: godap.ProtocolMessage{Seq: 1, Type: "request"}, Command: "initialize"},
		Arguments: godap.InitializeRequestArguments{AdapterID: "heddle", LinesStartAt1: true, ColumnsStartAt1: true}})
	m, err := godap.ReadProtocolMessage(bufio.NewReader(conn))
	if err != nil {
		t.Fatal(err)
	}
	resp, ok := m.(*godap.InitializeResponse)
	if !ok || !resp.Success || !resp.Body.SupportsStepBack {
		t.Fatalf("initialize answered %#v, want success with supportsStepBack", m)
	}
}
