package rt

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heddledbg/heddle/internal/golden"
)

// TestParseRaceReports reads logs of the race detector and checks what heddle makes of each
// report: the two accesses and the positions it reports.
func TestParseRaceReports(t *testing.T) {
	goListStd(t)
	for _, name := range []string{"map", "internal"} {
		t.Run(name, func(t *testing.T) {
			text, err := os.ReadFile(filepath.Join("testdata", "race", name+".txt"))
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			for _, rep := range parseRaceReports(string(text)) {
				b.WriteString("report\n")
				for _, a := range []*raceAccess{&rep.cur, &rep.prev} {
					fmt.Fprintf(&b, "  %s of %#x at %s\n", a.kind, a.addr, a.position())
					for _, f := range a.userFrames() {
						fmt.Fprintf(&b, "    %s %s:%d\n", f.Func, filepath.Base(f.File), f.Line)
					}
				}
			}
			golden.Check(t, filepath.Join("testdata", "race", name+".golden"), b.String())
		})
	}
}
