package dap

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/heddledbg/heddle/debugger"
	"github.com/heddledbg/heddle/rt"
)

// launchArgs are the launch attributes heddle reads (docs/dap.md, "Launch"). The rest are
// passed to Delve.
type launchArgs struct {
	Mode        string            `json:"mode"`
	Program     string            `json:"program"`
	Args        []string          `json:"args"`
	BuildFlags  buildFlags        `json:"buildFlags"`
	Env         map[string]string `json:"env"`
	Cwd         string            `json:"cwd"`
	StopOnEntry bool              `json:"stopOnEntry"`
	Schedule    string            `json:"schedule"`
	Strategy    string            `json:"strategy"`
	Budget      string            `json:"budget"`
	StopOnBug   *bool             `json:"stopOnBug"`
	// Time is the model of time: "synctest" (default) or "adversarial".
	Time rt.TimeModel `json:"time"`
}

// buildFlags accepts vscode-go's string form and Delve's list form.
type buildFlags []string

func (f *buildFlags) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*f = strings.Fields(s)
		return nil
	}
	var l []string
	if err := json.Unmarshal(b, &l); err != nil {
		return fmt.Errorf("buildFlags must be a string or a list of strings")
	}
	*f = l
	return nil
}

// delvePassThrough are the launch attributes Delve understands that heddle passes on.
var delvePassThrough = []string{"stackTraceDepth", "showGlobalVariables", "showRegisters", "goroutineFilters",
	"hideSystemGoroutines", "showPprofLabels", "substitutePath", "maxStringLen", "maxArrayValues"}

// launch builds the program and launches the first incarnation; the client then sets its
// breakpoints on it, and configurationDone starts the run.
func (s *Session) launch(m *message, a launchArgs) {
	// typed decoded the arguments as an object, so they decode as a map too.
	var all map[string]json.RawMessage
	if len(m.Arguments) > 0 {
		if err := json.Unmarshal(m.Arguments, &all); err != nil {
			s.fail(m, "launch: invalid launch configuration: %v", err)
			return
		}
	}
	extra := map[string]json.RawMessage{}
	for _, k := range delvePassThrough {
		if v, ok := all[k]; ok {
			extra[k] = v
		}
	}
	s.mu.Lock()
	s.extra = extra
	s.mu.Unlock()
	cfg := debugger.LaunchConfig{Mode: a.Mode, Program: a.Program, Args: a.Args, BuildFlags: a.BuildFlags, Env: a.Env, Cwd: a.Cwd,
		StopOnEntry: a.StopOnEntry, Schedule: a.Schedule, Strategy: a.Strategy, Budget: a.Budget, StopOnBug: a.StopOnBug, Time: a.Time}
	if err := s.dbg.Launch(cfg); err != nil {
		s.failErr(m, err)
		return
	}
	s.respond(m, nil)
	s.event("initialized", nil)
}
