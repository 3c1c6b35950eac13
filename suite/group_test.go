package suite

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/heddledbg/heddle/explorer"
	"github.com/heddledbg/heddle/procgroup"
)

// BenchmarkGroupRuns measures the runs of a process group: reqreply's two processes, fresh
// for every run, and the controller's decisions and sockets.
func BenchmarkGroupRuns(b *testing.B) {
	dir, _ := filepath.Abs("../testdata/groups")
	members, cleanup, err := buildGroup(context.Background(), dir, []string{"./reqreply/server", "./reqreply/client"}, nil, false, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cleanup()
	r, err := procgroup.New(context.Background(), members, explorer.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	b.ResetTimer()
	rep := explorer.ExploreOn(r, explorer.Options{Strategy: "random", MaxRuns: b.N})
	b.ReportMetric(float64(rep.Stats.Runs)/b.Elapsed().Seconds(), "runs/s")
}
