package dap

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	godap "github.com/google/go-dap"
)

// message is a DAP message as heddle handles it: the fields it routes on, and the raw
// arguments or body, so that requests heddle does not change pass through untouched.
type message struct {
	Seq        int             `json:"seq"`
	Type       string          `json:"type"`
	Command    string          `json:"command,omitempty"`
	Event      string          `json:"event,omitempty"`
	RequestSeq int             `json:"request_seq,omitempty"`
	Success    bool            `json:"success"`
	Message    string          `json:"message,omitempty"`
	Arguments  json.RawMessage `json:"arguments,omitempty"`
	Body       json.RawMessage `json:"body,omitempty"`
}

// MarshalJSON writes only the fields of the message's type, as DAP peers expect.
func (m *message) MarshalJSON() ([]byte, error) {
	switch m.Type {
	case "request":
		return json.Marshal(struct {
			Seq       int             `json:"seq"`
			Type      string          `json:"type"`
			Command   string          `json:"command"`
			Arguments json.RawMessage `json:"arguments,omitempty"`
		}{m.Seq, m.Type, m.Command, m.Arguments})
	case "response":
		return json.Marshal(struct {
			Seq        int             `json:"seq"`
			Type       string          `json:"type"`
			RequestSeq int             `json:"request_seq"`
			Success    bool            `json:"success"`
			Command    string          `json:"command"`
			Message    string          `json:"message,omitempty"`
			Body       json.RawMessage `json:"body,omitempty"`
		}{m.Seq, m.Type, m.RequestSeq, m.Success, m.Command, m.Message, m.Body})
	default:
		return json.Marshal(struct {
			Seq   int             `json:"seq"`
			Type  string          `json:"type"`
			Event string          `json:"event"`
			Body  json.RawMessage `json:"body,omitempty"`
		}{m.Seq, m.Type, m.Event, m.Body})
	}
}

// decode parses one DAP message's content. It rejects what a DAP peer could not have meant:
// no type, a request without a command, an event without a name.
func decode(content []byte) (*message, error) {
	var m message
	if err := json.Unmarshal(content, &m); err != nil {
		return nil, fmt.Errorf("malformed DAP message: %v", err)
	}
	switch m.Type {
	case "request":
		if m.Command == "" {
			return &m, fmt.Errorf("malformed DAP request %d: no command", m.Seq)
		}
	case "response":
	case "event":
		if m.Event == "" {
			return &m, fmt.Errorf("malformed DAP event %d: no event name", m.Seq)
		}
	default:
		return &m, fmt.Errorf("malformed DAP message %d: type %q is not request, response or event", m.Seq, m.Type)
	}
	return &m, nil
}

// reader reads framed DAP messages.
type reader struct{ r *bufio.Reader }

func newReader(r io.Reader) *reader { return &reader{bufio.NewReader(r)} }

// read returns the next message. A framing error (a missing or bad Content-Length header) is
// fatal to the stream; a malformed body is returned with the error, so that the request it
// carried, if its seq could be read, gets an error response.
func (r *reader) read() (*message, error) {
	content, err := godap.ReadBaseMessage(r.r)
	if err != nil {
		return nil, err
	}
	m, err := decode(content)
	if err != nil {
		return m, &decodeError{err}
	}
	return m, nil
}

// decodeError is a message whose framing was fine but whose content was not.
type decodeError struct{ err error }

func (e *decodeError) Error() string { return e.err.Error() }

// writer writes framed DAP messages, one at a time.
type writer struct {
	mu sync.Mutex
	w  io.Writer
}

func (w *writer) write(m *message) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return godap.WriteBaseMessage(w.w, b)
}

// body marshals v for a message body or arguments.
func body(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("dap: marshalling %T: %v", v, err))
	}
	return b
}
