package dap

import (
	"encoding/json"
	"fmt"
	"strings"
)

// rewriteThreadID returns the object raw (request arguments or an event body) with its
// threadId replaced by f(threadId): Delve knows goroutines by runtime id, the client by
// thread id (debugger.Debugger.Goid).
func rewriteThreadID(raw json.RawMessage, f func(int64) int64) (json.RawMessage, error) {
	if len(raw) == 0 || !strings.Contains(string(raw), `"threadId"`) {
		return raw, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	id, ok := m["threadId"]
	if !ok {
		return raw, nil
	}
	var n int64
	if err := json.Unmarshal(id, &n); err != nil {
		return nil, fmt.Errorf("threadId: %v", err)
	}
	m["threadId"] = body(f(n))
	return body(m), nil
}
