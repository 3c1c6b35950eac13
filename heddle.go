// Package heddle is the API a program under test may use to talk to heddle's controlled
// scheduler. Both functions are harmless outside heddle.
package heddle

import (
	"fmt"

	"github.com/heddledbg/heddle/rt"
)

// Assert reports a bug if cond is false: the run ends with an assertion verdict, the message
// formatted from format and args.
func Assert(cond bool, format string, args ...any) {
	if !cond {
		panic(&rt.AssertionError{Msg: fmt.Sprintf(format, args...)})
	}
}

// Choose returns a value in [0, n) that heddle chooses: an exhaustive exploration tries every
// value (VeriSoft's VS_toss). Outside heddle it returns 0.
func Choose(n int) int { return rt.Choose(n) }
