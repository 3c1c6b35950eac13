// Command server answers one request. It speaks two framings: a request line ending in a
// newline, and the legacy framing, in which a request ends when the client closes its side.
// Which one it uses depends on its configuration, loaded by a goroutine of its own at start-up.
//
// The bug: the server reads the configuration without waiting for it to load. On the
// interleaving where the connection arrives first, it falls back to the legacy framing and
// waits for the client to close, while the client, which sent its line, waits for the reply:
// a deadlock across the two processes.
package main

import (
	"bufio"
	"io"
	"log"
	"net"
	"sync"
)

const addr = "127.0.0.1:7070"

var (
	mu       sync.Mutex
	lineMode bool // set once the configuration has loaded
)

func loadConfig() {
	mu.Lock()
	lineMode = true
	mu.Unlock()
}

func main() {
	go loadConfig()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		log.Fatal(err)
	}
	conn, err := ln.Accept()
	if err != nil {
		log.Fatal(err)
	}
	mu.Lock()
	lines := lineMode
	mu.Unlock()
	var req string
	if lines {
		req, err = bufio.NewReader(conn).ReadString('\n')
	} else {
		var b []byte
		b, err = io.ReadAll(conn)
		req = string(b)
	}
	if err != nil {
		log.Fatal(err)
	}
	conn.Write([]byte("re: " + req))
	conn.Close()
	ln.Close()
}
