package suite

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/heddledbg/heddle/driver"
	"github.com/heddledbg/heddle/instrument"
	"github.com/heddledbg/heddle/record"
	"github.com/heddledbg/heddle/wire"
)

// Replay replays schedule s, read from path, count times, and returns the traces. It builds
// the schedule's package (or the members of its process group) in dir, by default where the
// schedule was recorded, with the race detector if race. A note that the program changed since
// the schedule was recorded goes to notes, and what the program prints in the first replay to
// output (nil discards it).
func Replay(ctx context.Context, notes, output io.Writer, path string, s *record.Schedule, dir string, race bool, count int) ([]*record.Trace, error) {
	if dir == "" {
		if fi, err := os.Stat(s.Program.Dir); err == nil && fi.IsDir() {
			dir = s.Program.Dir
		}
	}
	if s.Program.Group != "" {
		return replayGroup(ctx, dir, s, count)
	}
	tests := s.Program.Test != "main"
	res, err := instrument.Build(ctx, instrument.Config{Dir: dir, Packages: []string{s.Program.Package}, Test: tests, BuildFlags: WithRace(nil, race)})
	if err != nil {
		return nil, raceBuildError(err)
	}
	defer os.RemoveAll(res.WorkDir)
	if len(res.Binaries) != 1 {
		return nil, fmt.Errorf("%s: found %d binaries for package %s", path, len(res.Binaries), s.Program.Package)
	}
	bin := res.Binaries[0]
	gorace, err := RaceEnv(res.WorkDir)
	if err != nil {
		return nil, err
	}
	w := &driver.Worker{Path: bin.Path, Dir: bin.Dir, Env: append([]string{wire.EnvPackage + "=" + bin.Package, gorace}, wire.Selecting(s.Program.Run, s.Program.Skip)...)}
	if bin.Test {
		w.Args = wire.TestArgs(true)
	}
	if d := digest(bin.Path); s.Program.Binary != "" && d != s.Program.Binary {
		fmt.Fprintf(notes, "heddle: note: the program changed since the schedule was recorded (%s, now %s)\n", s.Program.Binary, d)
	}
	var trs []*record.Trace
	var printed bytes.Buffer
	for i := range count {
		w.Output = nil
		if i == 0 && output != nil {
			w.Output = &printed
		}
		tr, err := driver.Replay(ctx, w, s.Program.Test, s, wire.Options{})
		if err != nil {
			return nil, err
		}
		tr.Program = s.Program
		trs = append(trs, tr)
		if i == 0 && output != nil {
			if _, err := io.WriteString(output, programOutput(printed.String())); err != nil {
				return nil, err
			}
		}
	}
	return trs, nil
}

// programOutput is what a worker test binary printed, without the lines that the testing
// package prints of the worker's own test function and the subtests it runs the test in (their
// runs and results, and the binary's final PASS or FAIL): the test's log is in the verdict.
func programOutput(s string) string {
	var b strings.Builder
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		f := strings.Fields(l)
		switch {
		case len(f) >= 3 && (f[0] == "===" || f[0] == "---") &&
			(f[2] == wire.TestFunc || strings.HasPrefix(f[2], wire.TestFunc+"/")):
			continue
		case len(f) == 1 && (f[0] == "PASS" || f[0] == "FAIL") && strings.TrimSpace(strings.Join(lines[i+1:], "")) == "":
			continue
		}
		b.WriteString(l)
	}
	return b.String()
}
