package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/heddledbg/heddle/instrument"
)

// Data races are found by building the instrumented test with the race detector (-race), whose
// reports each worker writes to a file of its own under the build's work directory (see
// rt/race.go). It is on by default: most bugs of real programs that do not block are races.

// raceFlagUsage documents -race for test, run and replay.
const raceFlagUsage = "detect data races under the explored schedules (builds with the race detector; -race=false turns it off)"

// withRace adds -race to the build flags when race detection is on.
func withRace(build []string, on bool) []string {
	if !on {
		return build
	}
	return append(build, "-race")
}

// raceEnv writes the race detector's suppressions into dir and returns the worker's GORACE:
// the user's options, the suppressions, and a log file per worker process in dir (the race
// detector adds the process id), which the worker reads after each run.
func raceEnv(dir string) (string, error) {
	// Written aside and renamed, so that a worker starting meanwhile reads the whole file.
	f, err := os.CreateTemp(dir, "race.supp.*")
	if err != nil {
		return "", err
	}
	_, err = f.WriteString(raceSuppressions)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	supp := filepath.Join(dir, "race.supp")
	if err == nil {
		err = os.Rename(f.Name(), supp)
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return "GORACE=" + strings.TrimSpace(os.Getenv("GORACE")+" suppressions="+supp+" log_path="+filepath.Join(dir, "race")), nil
}

// raceSuppressions leave out the races of heddle's own state, which goroutines touch in turn
// across the hand-offs hidden from the race detector (rt/race.go): reports whose access, either
// of them, is at the top of a stack in heddle's code (race_top), and map accesses made by rt
// functions that never call the program's code (race, which matches any frame of a stack).
// rt leaves out any such report that still comes through.
const raceSuppressions = `race_top:github.com/heddledbg/heddle/
race_top:github.com/heddledbg/heddle.
race:github.com/heddledbg/heddle/explorer.
race:github.com/heddledbg/heddle/rt.atomicOp
race:github.com/heddledbg/heddle/rt.(*run).acquire
race:github.com/heddledbg/heddle/rt.(*run).release
race:github.com/heddledbg/heddle/rt.stateOf
race:github.com/heddledbg/heddle/rt.MakeChan
race:github.com/heddledbg/heddle/rt.unregisterChan
race:github.com/heddledbg/heddle/rt/harness.Cleanup
`

// raceBuildError explains a build that failed because the toolchain cannot build with the race
// detector, or returns err unchanged.
func raceBuildError(err error) error {
	var be *instrument.BuildError
	if errors.As(err, &be) && strings.Contains(be.Output, "-race") &&
		(strings.Contains(be.Output, "requires cgo") || strings.Contains(be.Output, "not supported")) {
		return errors.New("race detection needs the race detector, which this toolchain cannot build (" +
			strings.TrimSpace(be.Output) + "): install a C compiler and set CGO_ENABLED=1, or run with -race=false")
	}
	return err
}
