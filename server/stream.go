package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"sync"
	"time"

	"github.com/gorilla/websocket"
	"github.com/heddledbg/heddle/record"
)

// live is what has been published, replayed to every new client.
type live struct {
	ids        map[int]bool // ids of published nodes
	log        [][]byte     // start, node and bug messages, in order
	progress   []byte       // the latest progress or done message
	checkpoint []byte       // the latest checkpoint message
	stats      *record.Stats
}

const (
	// sendQueue is how many messages a client may fall behind before it is
	// disconnected; it reconnects and gets the state replayed.
	sendQueue    = 4096
	writeTimeout = 10 * time.Second
	pingInterval = 30 * time.Second
)

// Publish sends a message to every connected client and records it for clients that connect
// later. A message is a record.Start, Node, Bug, Progress, Done or Checkpoint, or a pointer to one
// (the stream of docs/formats.md), or the JSON encoding of such a message with its "type".
// Node messages must name a parent published before them. A message of another shape is an
// error, and is not sent.
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
		var n record.Node
		if err := strictUnmarshal(data, &n); err != nil {
			return fmt.Errorf("server: publish node: %w", err)
		}
		if path, err := n.Check(s.live.ids, nil); err != nil {
			return fmt.Errorf("server: publish node %d: %s: %w", n.ID, path[1:], err)
		}
		s.live.log = append(s.live.log, data)
	case "bug":
		var b record.Bug
		if err := strictUnmarshal(data, &b); err != nil {
			return fmt.Errorf("server: publish bug: %w", err)
		}
		s.live.log = append(s.live.log, data)
	case "progress", "done":
		var p record.Progress
		if err := strictUnmarshal(data, &p); err != nil {
			return fmt.Errorf("server: publish %s: %w", typ, err)
		}
		s.live.progress = data
		s.live.stats = &p.Stats
	case "start":
		var st record.Start
		if err := strictUnmarshal(data, &st); err != nil {
			return fmt.Errorf("server: publish start: %w", err)
		}
		s.live.log = append(s.live.log, data)
	case "checkpoint":
		var c record.Checkpoint
		if err := strictUnmarshal(data, &c); err != nil {
			return fmt.Errorf("server: publish checkpoint: %w", err)
		}
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

// strictUnmarshal decodes a stream message, beside its "type", into v, rejecting fields the
// format does not have: a producer that sends another shape is told so.
func strictUnmarshal(data []byte, v any) error {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return err
	}
	delete(fields, "type")
	rest, err := json.Marshal(fields)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(rest))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// messageTypes are the stream's messages and their "type".
var messageTypes = map[reflect.Type]string{
	reflect.TypeFor[record.Start]():      "start",
	reflect.TypeFor[record.Node]():       "node",
	reflect.TypeFor[record.Bug]():        "bug",
	reflect.TypeFor[record.Progress]():   "progress",
	reflect.TypeFor[record.Done]():       "done",
	reflect.TypeFor[record.Checkpoint](): "checkpoint",
}

// encodeMessage marshals a message, with its fields beside "type", and returns its type.
func encodeMessage(msg any) (string, []byte, error) {
	var data []byte
	switch m := msg.(type) {
	case []byte:
		data = bytes.Clone(m)
	case json.RawMessage:
		data = bytes.Clone(m)
	default:
		v := reflect.ValueOf(msg)
		if v.Kind() == reflect.Pointer && !v.IsNil() {
			v = v.Elem()
		}
		typ, ok := messageTypes[v.Type()]
		if !ok {
			return "", nil, fmt.Errorf("%T is not a stream message", msg)
		}
		body, err := json.Marshal(v.Interface())
		if err != nil {
			return "", nil, err
		}
		head, _ := json.Marshal(typ)
		data = append([]byte(`{"type":`), head...)
		if string(body) != "{}" {
			data = append(append(data, ','), body[1:]...)
		} else {
			data = append(data, '}')
		}
		return typ, data, nil
	}
	var head struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return "", nil, fmt.Errorf("message is not a JSON object: %w", err)
	}
	switch head.Type {
	case "start", "node", "bug", "progress", "done", "checkpoint":
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
		Type    string          `json:"type"`
		Session string          `json:"session"`
		Program *record.Program `json:"program"`
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
