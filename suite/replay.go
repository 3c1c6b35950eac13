package suite

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/heddledbg/heddle/driver"
	"github.com/heddledbg/heddle/instrument"
	"github.com/heddledbg/heddle/record"
	"github.com/heddledbg/heddle/wire"
)

// Replay replays schedule s, read from path, count times, and returns the traces. It builds
// the schedule's package (or the members of its process group) in dir, by default where the
// schedule was recorded, with the race detector if race. A note that the program changed since
// the schedule was recorded goes to notes.
func Replay(ctx context.Context, notes io.Writer, path string, s *record.Schedule, dir string, race bool, count int) ([]*record.Trace, error) {
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
	for range count {
		tr, err := driver.Replay(ctx, w, s.Program.Test, s, wire.Options{})
		if err != nil {
			return nil, err
		}
		tr.Program = s.Program
		trs = append(trs, tr)
	}
	return trs, nil
}
