// Command server is reqreply's server, fixed: it waits for its configuration before it reads
// a request, so it always uses the framing the client speaks. The client is reqreply's.
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
	lineMode bool
	loaded   = make(chan struct{})
)

func loadConfig() {
	mu.Lock()
	lineMode = true
	mu.Unlock()
	close(loaded)
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
	<-loaded
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
