package suite

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/heddledbg/heddle/instrument"
	"github.com/heddledbg/heddle/rt"
)

// Data races are found by building the instrumented test with the race detector (-race), whose
// reports each worker writes to a file of its own under the build's work directory (see
// rt/race.go). It is on by default: most bugs of real programs that do not block are races.

// RaceUsage documents the flag -race of heddle test, run and replay.
const RaceUsage = "detect data races under the explored schedules (builds with the race detector; -race=false turns it off)"

// WithRace adds -race to the build flags when race detection is on. It also compiles heddle's
// own packages, which every worker links, without -race's pointer checks (-d=checkptr): the
// compiler checks each step of a range loop over a slice there, a lookup of the heap object
// per element, which took a tenth of the time of yamux's TestManyStreams in the scheduler's
// loops over its goroutines. The program's packages keep the checks, as under go test -race.
// The flag comes first, so that a -gcflags of the user's that matches heddle's packages too
// (all=-N -l) still wins for them.
func WithRace(build []string, on bool) []string {
	if !on {
		return build
	}
	return append(append([]string{"-gcflags=" + rt.ModulePath + "/...=-d=checkptr=0"}, build...), "-race")
}

// RaceEnv writes the race detector's suppressions into dir and returns the worker's GORACE:
// the user's options, the suppressions, and a log file per worker process in dir (the race
// detector adds the process id), which the worker reads after each run.
func RaceEnv(dir string) (string, error) {
	// Written aside and renamed, so that a worker starting meanwhile reads the whole file.
	f, err := os.CreateTemp(dir, "race.supp.*")
	if err != nil {
		return "", err
	}
	_, err = f.WriteString(rt.RaceSuppressions)
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

// raceBuildError explains a build that failed because the toolchain cannot build with the race
// detector, or returns err unchanged.
func raceBuildError(err error) error {
	msg := err.Error()
	var be *instrument.BuildError
	if errors.As(err, &be) {
		msg = be.Output
	}
	if strings.Contains(msg, "-race requires cgo") || strings.Contains(msg, "-race is not supported") {
		return fmt.Errorf("race detection needs a toolchain that builds with -race, and this one cannot: %s\n"+
			"install a C compiler and set CGO_ENABLED=1, or run with -race=false", strings.TrimSpace(lastLine(msg)))
	}
	return err
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}
