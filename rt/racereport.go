package rt

import (
	"strconv"
	"strings"
)

// The race detector's reports, as rt reads them back from its log in a -race build
// (race.go). The parser is in every build so that it is tested in every build.

// RaceSuppressions, a suppressions file for the race detector (GORACE=suppressions=FILE),
// leave out the races of heddle's own state that remain visible to the detector although rt's
// functions are compiled without its instrumentation (//go:norace): the runtime checks the
// maps and slices that heddle's functions read, grow and copy itself. Goroutines touch that
// state in turn across hand-offs hidden from the detector (race.go), which would take it for a
// race. Each line names a function whose map or slice showed such a race in a test; the
// explorer's guide runs only in the scheduler's decisions, never on the program's behalf.
// Every report costs the detector the rebuilding of both stacks before the suppression
// applies, so the state looked up at every step is kept in tables it does not see (ptrTable):
// the registry of channels (MakeChan, stateOf and unregisterChan, shown by the timerdrain and
// snapshotresult kernels) and the atomic variables by address (atomicOp, internal/racetest's
// "atomic" program) need no line any more.
//
//   - acquireModel and releaseModel (the last release of each object), accesses.check and
//     clocks (the lockset check's shadow and vector clocks), takeResumed (the resume queue),
//     the explorer's Guide: TestHappensBefore (cmd/heddle);
//   - joined (a vector clock grown to another's length, for clocks and for sync.Pool's
//     hand-offs): cmd/heddle's TestSkips, whose runs' clocks grew across runs;
//   - accessPool (which goroutine put each item of a sync.Pool): internal/racetest's "pool"
//     program, and coder/websocket's TestConn, whose buffer pool it failed with no message.
const RaceSuppressions = `race:github.com/heddledbg/heddle/rt.(*run).acquireModel
race:github.com/heddledbg/heddle/rt.(*run).releaseModel
race:github.com/heddledbg/heddle/rt.(*run).takeResumed
race:github.com/heddledbg/heddle/rt.(*accesses).
race:github.com/heddledbg/heddle/rt.(*clocks).
race:github.com/heddledbg/heddle/rt.joined
race:github.com/heddledbg/heddle/rt.(*run).accessPool
race:github.com/heddledbg/heddle/explorer.
`

// A raceReport is one "WARNING: DATA RACE" of the detector: the access that found the race
// and the earlier one it races with.
type raceReport struct {
	cur, prev raceAccess
}

type raceAccess struct {
	kind   string  // "write", "read", "atomic write"…
	addr   uintptr // the address accessed
	frames []Frame
}

// parseRaceReports extracts the reports of the detector's output, in the format of
// runtime/race:
//
//	WARNING: DATA RACE
//	Write at 0x00c000012345 by goroutine 7:
//	  main.f()
//	      /src/x.go:12 +0x44
//
//	Previous read at 0x00c000012345 by main goroutine:
//	  …
func parseRaceReports(text string) []raceReport {
	var out []raceReport
	var cur *raceAccess
	for _, line := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(line, "WARNING: DATA RACE"):
			out = append(out, raceReport{})
			cur = nil
		case len(out) == 0:
		case strings.Contains(line, " at 0x") && strings.HasSuffix(line, ":") && !strings.HasPrefix(line, " "):
			a := parseAccessHeader(line)
			rep := &out[len(out)-1]
			if strings.HasPrefix(line, "Previous ") {
				rep.prev = a
				cur = &rep.prev
			} else {
				rep.cur = a
				cur = &rep.cur
			}
		case cur == nil:
		case line == "" || !strings.HasPrefix(line, " "):
			cur = nil
		case strings.HasPrefix(strings.TrimSpace(line), "["):
			// "[failed to restore the stack]": the detector's history no longer holds it.
		case strings.HasPrefix(line, "      "):
			if n := len(cur.frames); n > 0 {
				file, _, _ := strings.Cut(strings.TrimSpace(line), " +0x")
				if i := strings.LastIndexByte(file, ':'); i > 0 {
					cur.frames[n-1].File = file[:i]
					cur.frames[n-1].Line, _ = strconv.Atoi(file[i+1:])
				}
			}
		default:
			fn := strings.TrimSuffix(strings.TrimSpace(line), "()")
			cur.frames = append(cur.frames, Frame{Func: fn})
		}
	}
	return out
}

func parseAccessHeader(line string) raceAccess {
	head, _, _ := strings.Cut(strings.TrimSuffix(line, ":"), " by ")
	kind, addr, _ := strings.Cut(head, " at 0x")
	a := raceAccess{kind: strings.ToLower(strings.TrimPrefix(kind, "Previous "))}
	if n, err := strconv.ParseUint(addr, 16, 64); err == nil {
		a.addr = uintptr(n)
	}
	return a
}

// internal reports whether one access of the race is heddle's own: made by heddle's code
// through the standard library rather than by the program. rt's functions are //go:norace, but
// what they call in the standard library is instrumented, and it may share memory with the
// program's own calls of it (fmt's pooled printers, which heddle's naming of goroutines and
// the program's Sprintf both use, ordered by a sync.Pool whose edges heddle's hidden scheduling
// steps do not show): kernels/fullbuffer under TestDifferential showed one. The accesses that
// heddle's primitives make for the program (a real channel operation, an atomic, raceReadAt)
// are the program's.
//
//go:norace
func (rep *raceReport) internal() bool { return rep.cur.internal() || rep.prev.internal() }

//go:norace
func (a *raceAccess) internal() bool {
	if len(a.frames) == 0 || primitiveFrame(a.frames[0].Func) {
		return false
	}
	for _, f := range a.frames {
		if !stdFunc(f.Func) {
			return heddleFunc(f.Func)
		}
	}
	return false
}

// primitiveFrame reports whether fn, the innermost frame of an access, is a synchronization
// primitive's access to its own memory, which heddle's stand-ins make on the program's behalf.
//
//go:norace
func primitiveFrame(fn string) bool {
	switch fn {
	case "runtime.chansend", "runtime.chanrecv", "runtime.closechan", "runtime.raceread", "runtime.racewrite":
		return true
	}
	return strings.HasPrefix(fn, "sync/atomic.")
}

// userFrames are the frames of the program's code, without the runtime's and heddle's.
func (a *raceAccess) userFrames() []Frame {
	var out []Frame
	for _, f := range a.frames {
		// sync/atomic's frames are the atomic access itself, which position names.
		pkg := FuncPackage(f.Func)
		if !internalFrame(f.Func) && !(stdPackages[pkg] && (pkg == "testing" || pkg == "sync/atomic" || strings.HasPrefix(pkg, "internal/"))) {
			out = append(out, f)
		}
	}
	return out
}

// position is where the access is in the program's code, with the library function it was
// made in when that is not the program's (runtime.mapassign for a map write).
func (a *raceAccess) position() string {
	fs := a.userFrames()
	if len(fs) == 0 {
		return "an unknown position"
	}
	pos := fs[0].Position()
	// runtime.raceread and racewrite are the accesses heddle makes for a primitive's own
	// memory (raceReadAt): the program's line is where it used the primitive.
	if len(a.frames) > 0 && a.frames[0].Func != fs[0].Func && !strings.HasPrefix(a.frames[0].Func, "runtime.race") {
		pos += " (in " + a.frames[0].Func + ")"
	}
	return pos
}
