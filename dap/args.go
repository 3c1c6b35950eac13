package dap

import "encoding/json"

// A handler answers one request.
type handler func(s *Session, m *message)

// typed makes a handler of f, which takes the request's arguments decoded as A. Arguments
// that do not decode as A get an error response naming the request.
func typed[A any](f func(s *Session, m *message, a A)) handler {
	return func(s *Session, m *message) {
		var a A
		if len(m.Arguments) > 0 {
			if err := json.Unmarshal(m.Arguments, &a); err != nil {
				s.fail(m, "%s: malformed arguments: %v", m.Command, err)
				return
			}
		}
		f(s, m, a)
	}
}

// handlers are the requests heddle answers or rewrites; the others go to Delve as they are,
// but for their thread id (forward).
var handlers map[string]handler

func init() {
	handlers = map[string]handler{
		"initialize":                typed((*Session).initialize),
		"launch":                    typed((*Session).launch),
		"configurationDone":         typed((*Session).configurationDone),
		"setBreakpoints":            typed((*Session).setBreakpoints),
		"setFunctionBreakpoints":    typed((*Session).setFunctionBreakpoints),
		"setExceptionBreakpoints":   typed((*Session).setExceptionBreakpoints),
		"setInstructionBreakpoints": typed((*Session).setInstructionBreakpoints),
		"continue":                  typed((*Session).cont),
		"next":                      typed((*Session).next),
		"stepIn":                    typed((*Session).stepIn),
		"stepOut":                   typed((*Session).stepOut),
		"stepBack":                  typed((*Session).stepBack),
		"reverseContinue":           typed((*Session).reverseContinue),
		"threads":                   typed((*Session).threads),
		"stackTrace":                typed((*Session).stackTrace),
		"exceptionInfo":             typed((*Session).exceptionInfo),
		"heddle/checkpoints":        typed((*Session).checkpoints),
		"heddle/gotoCheckpoint":     typed((*Session).gotoCheckpoint),
		"heddle/runnable":           typed((*Session).runnable),
		"heddle/scheduleNext":       typed((*Session).scheduleNext),
		"heddle/saveSchedule":       typed((*Session).saveSchedule),
		"heddle/explore":            typed((*Session).explore),
		"heddle/cancel":             typed((*Session).cancel),
		"heddle/replay":             typed((*Session).replay),
		"heddle/lockTrees":          typed((*Session).lockTrees),
		"heddle/webview":            typed((*Session).webview),
	}
}

// The arguments of the standard requests heddle reads are go-dap's, but for threads, which has
// none.
type threadsArgs struct{}

// The arguments of the heddle/* requests (docs/dap.md, "Requests").
type (
	checkpointsArgs    struct{}
	gotoCheckpointArgs struct {
		Index *int `json:"index"`
	}
	runnableArgs     struct{}
	scheduleNextArgs struct {
		Goroutine string `json:"goroutine"`
	}
	saveScheduleArgs struct {
		Path string `json:"path"`
	}
	exploreArgs struct {
		Strategy string `json:"strategy"`
		Budget   string `json:"budget"`
	}
	cancelArgs struct {
		ID int `json:"id"`
	}
	replayArgs struct {
		Bug      int    `json:"bug"`
		Schedule string `json:"schedule"`
	}
	lockTreesArgs struct{}
	webviewArgs   struct {
		AllowOrigin string `json:"allowOrigin"`
	}
)
