// Package server is reqreplytests' server, fixed: it waits for its configuration before it
// chooses the framing. The client is reqreplytests'.
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
	lineMode bool
	loaded   chan struct{}
}

func (s *Server) loadConfig() {
	s.mu.Lock()
	s.lineMode = true
	s.mu.Unlock()
	close(s.loaded)
}

// ServeOne loads the configuration in the background and answers one request.
func (s *Server) ServeOne() error {
	s.loaded = make(chan struct{})
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
	<-s.loaded
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
