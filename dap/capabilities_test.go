package dap

import (
	"encoding/json"
	"maps"
	"slices"
	"testing"
	"time"

	godap "github.com/google/go-dap"
)

// TestCapabilities compares heddle dap's capabilities with dlv dap's own, which it answers
// the requests of by passing them to Delve: every capability Delve declares, heddle declares,
// except restart (heddle's restart is a go to checkpoint 0) and data breakpoints (a watchpoint
// of one incarnation); and heddle adds going backwards and terminate, which it answers itself.
func TestCapabilities(t *testing.T) {
	initialize := func(c *client) map[string]any {
		seq := c.send(&godap.InitializeRequest{Request: godap.Request{Command: "initialize"}, Arguments: godap.InitializeRequestArguments{AdapterID: "go", LinesStartAt1: true, ColumnsStartAt1: true, PathFormat: "path"}})
		var caps map[string]any
		if err := json.Unmarshal(c.response(seq, time.Minute).Body, &caps); err != nil {
			t.Fatal(err)
		}
		return caps
	}
	delve, heddle := initialize(newDelveClient(t)), initialize(newClient(t))
	not := map[string]bool{"supportsRestartRequest": true, "supportsDataBreakpoints": true}
	own := map[string]bool{"supportsStepBack": true, "supportsTerminateRequest": true}
	for _, k := range slices.Sorted(maps.Keys(delve)) {
		if not[k] {
			if heddle[k] == true {
				t.Errorf("heddle declares %s, which it answers itself with a go to checkpoint 0", k)
			}
			continue
		}
		if v, _ := json.Marshal(delve[k]); string(v) != mustJSON(heddle[k]) {
			t.Errorf("%s: heddle declares %s, Delve %s", k, mustJSON(heddle[k]), v)
		}
	}
	for k := range own {
		if heddle[k] != true {
			t.Errorf("heddle does not declare %s", k)
		}
	}
	for k := range heddle {
		if _, ok := delve[k]; !ok && !own[k] {
			t.Errorf("heddle declares %s, which Delve does not", k)
		}
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
