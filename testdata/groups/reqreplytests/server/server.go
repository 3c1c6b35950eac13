// Package server is reqreply's server as a package whose test serves one request, so that
// heddle test -group explores it with its client's test: the same deadlock across the two
// test processes.
package server

import (
	"bufio"
	"io"
	"net"
	"sync"
)

// Addr is where the server listens.
const Addr = "127.0.0.1:7071"

// Server answers one request, in the framing its configuration selects.
type Server struct {
	mu       sync.Mutex
	lineMode bool // set once the configuration has loaded
}

func (s *Server) loadConfig() {
	s.mu.Lock()
	s.lineMode = true
	s.mu.Unlock()
}

// ServeOne loads the configuration in the background and answers one request. Its bug: it
// does not wait for the configuration before it chooses the framing.
func (s *Server) ServeOne() error {
	go s.loadConfig()
	ln, err := net.Listen("tcp", Addr)
	if err != nil {
		return err
	}
	defer ln.Close()
	conn, err := ln.Accept()
	if err != nil {
		return err
	}
	defer conn.Close()
	s.mu.Lock()
	lines := s.lineMode
	s.mu.Unlock()
	var req string
	if lines {
		req, err = bufio.NewReader(conn).ReadString('\n')
	} else {
		var b []byte
		b, err = io.ReadAll(conn)
		req = string(b)
	}
	if err != nil {
		return err
	}
	_, err = conn.Write([]byte("re: " + req))
	return err
}
