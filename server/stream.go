package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// Progress reports how far an exploration has got.
type Progress struct {
	Stats Stats `json:"stats"`
}

// Done reports that an exploration finished.
type Done struct {
	Stats Stats `json:"stats"`
}

// Checkpoint reports that the debugger stopped at decision Index, which
// precedes step Step of the trace named Trace.
type Checkpoint struct {
	Index int    `json:"index"`
	Step  int    `json:"step"`
	Trace string `json:"trace"`
}

// live is what has been published, replayed to every new client.
type live struct {
	ids        map[int]bool // ids of published nodes
	log        [][]byte     // node and bug messages, in order
	progress   []byte       // the latest progress or done message
	checkpoint []byte       // the latest checkpoint message
	stats      *Stats
}

const (
	// sendQueue is how many messages a client may fall behind before it is
	// disconnected; it reconnects and gets the state replayed.
	sendQueue    = 4096
	writeTimeout = 10 * time.Second
	pingInterval = 30 * time.Second
)

// Publish sends a message to every connected client and records it for
// clients that connect later. A message is a Node, Bug, Progress, Done or
// Checkpoint (or a pointer to one), or any value that marshals to a JSON
// object whose "type" is one of node, bug, progress, done and checkpoint.
// Node messages must name a parent published before them.
func (s *Server) Publish(msg any) error {
	typ, data, err := encodeMessage(msg)
	if err != nil {
		return fmt.Errorf("server: publish: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errors.New("server: publish: server is closed")
	}
	switch typ {
	case "node":
		var n Node
		if err := json.Unmarshal(data, &n); err != nil {
			return fmt.Errorf("server: publish node: %w", err)
		}
		if path, err := checkNode(&n, s.live.ids, nil); err != nil {
			return fmt.Errorf("server: publish node %d: %s: %w", n.ID, path[1:], err)
		}
		s.live.log = append(s.live.log, data)
	case "bug":
		s.live.log = append(s.live.log, data)
	case "progress", "done":
		var p Progress
		if err := json.Unmarshal(data, &p); err != nil {
			return fmt.Errorf("server: publish %s: %w", typ, err)
		}
		s.live.progress = data
		s.live.stats = &p.Stats
	case "checkpoint":
		s.live.checkpoint = data
	}
	for c := range s.clients {
		select {
		case c.send <- data:
		default:
			c.kick()
		}
	}
	return nil
}

// encodeMessage marshals a message and returns its type.
func encodeMessage(msg any) (string, []byte, error) {
	var v any
	switch m := msg.(type) {
	case Node:
		v = struct {
			Type string `json:"type"`
			Node
		}{"node", m}
	case *Node:
		return encodeMessage(*m)
	case Bug:
		v = struct {
			Type string `json:"type"`
			Bug
		}{"bug", m}
	case *Bug:
		return encodeMessage(*m)
	case Progress:
		v = struct {
			Type string `json:"type"`
			Progress
		}{"progress", m}
	case *Progress:
		return encodeMessage(*m)
	case Done:
		v = struct {
			Type string `json:"type"`
			Done
		}{"done", m}
	case *Done:
		return encodeMessage(*m)
	case Checkpoint:
		v = struct {
			Type string `json:"type"`
			Checkpoint
		}{"checkpoint", m}
	case *Checkpoint:
		return encodeMessage(*m)
	case []byte:
		v = json.RawMessage(m)
	default:
		v = m
	}
	data, err := json.Marshal(v)
	if err != nil {
		return "", nil, err
	}
	var head struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return "", nil, fmt.Errorf("message is not a JSON object: %w", err)
	}
	switch head.Type {
	case "node", "bug", "progress", "done", "checkpoint":
		return head.Type, data, nil
	case "":
		return "", nil, errors.New(`message has no "type"`)
	}
	return "", nil, fmt.Errorf("unknown message type %q", head.Type)
}

// client is one WebSocket connection.
type client struct {
	conn *websocket.Conn
	send chan []byte
	done chan struct{}
	once sync.Once
}

// kick asks the client's writer to close the connection.
func (c *client) kick() { c.once.Do(func() { close(c.done) }) }

func (s *Server) serveWS(w http.ResponseWriter, r *http.Request) {
	up := websocket.Upgrader{
		ReadBufferSize:  1024,
		WriteBufferSize: 64 << 10,
		CheckOrigin:     s.originAllowed,
	}
	conn, err := up.Upgrade(w, r, nil)
	if err != nil {
		return // Upgrade has replied to the client
	}
	c := &client{conn: conn, send: make(chan []byte, sendQueue), done: make(chan struct{})}

	// Take the replay and register the client under one lock, so that each
	// message is either in the replay or sent later, never both or neither.
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		conn.Close()
		return
	}
	hello := struct {
		Type    string   `json:"type"`
		Session string   `json:"session"`
		Program *Program `json:"program"`
	}{"hello", s.opts.Session, s.program}
	replay := make([][]byte, 0, len(s.live.log)+3)
	replay = append(replay, mustMarshal(hello))
	replay = append(replay, s.live.log...)
	for _, m := range [][]byte{s.live.progress, s.live.checkpoint} {
		if m != nil {
			replay = append(replay, m)
		}
	}
	s.clients[c] = true
	s.wg.Add(2)
	s.mu.Unlock()

	go func() {
		defer s.wg.Done()
		s.read(c)
	}()
	go func() {
		defer s.wg.Done()
		s.write(c, replay)
		s.mu.Lock()
		delete(s.clients, c)
		s.mu.Unlock()
	}()
}

// read discards what the client sends; it only notices the client leaving
// and answers pings.
func (s *Server) read(c *client) {
	c.conn.SetReadLimit(4096)
	for {
		if _, _, err := c.conn.NextReader(); err != nil {
			c.kick()
			return
		}
	}
}

func (s *Server) write(c *client, replay [][]byte) {
	defer c.conn.Close()
	put := func(data []byte) bool {
		c.conn.SetWriteDeadline(time.Now().Add(writeTimeout))
		return c.conn.WriteMessage(websocket.TextMessage, data) == nil
	}
	for _, m := range replay {
		select {
		case <-c.done:
			return
		default:
		}
		if !put(m) {
			return
		}
	}
	ping := time.NewTicker(pingInterval)
	defer ping.Stop()
	for {
		select {
		case <-c.done:
			c.conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseGoingAway, ""), time.Now().Add(time.Second))
			return
		case m := <-c.send:
			if !put(m) {
				return
			}
		case <-ping.C:
			if c.conn.WriteControl(websocket.PingMessage, nil, time.Now().Add(writeTimeout)) != nil {
				return
			}
		}
	}
}
