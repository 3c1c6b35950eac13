package explorer_test

import (
	"testing"

	"github.com/heddledbg/heddle/explorer"
	"github.com/heddledbg/heddle/internal/corpus"
	"github.com/heddledbg/heddle/rt"
)

// TestCorpus checks the default exploration against the known answer of every corpus program:
// a buggy program's bug is found with its kind, and its correct twin is explored completely
// without a bug.
func TestCorpus(t *testing.T) {
	for _, p := range corpus.Programs {
		t.Run(p.Name, func(t *testing.T) {
			rep := explorer.Explore(p.Body, explorer.Options{})
			if p.Want == "" {
				if !rep.Stats.Complete {
					t.Errorf("exploration incomplete after %d runs", rep.Stats.Runs)
				}
				for _, b := range rep.Bugs {
					t.Errorf("correct program: unexpected %s bug %q (%s)", b.Kind, b.Message, b.Key)
				}
				return
			}
			b := firstOfKind(rep, p.Want)
			if b == nil {
				t.Fatalf("no %s bug in %d runs; found %v", p.Want, rep.Stats.Runs, kinds(rep))
			}
		})
	}
}

// TestCorpusTwins checks that the corpus pairs every buggy program with a correct twin that
// names it back, so that each bug is tested against its fix.
func TestCorpusTwins(t *testing.T) {
	for _, p := range corpus.Programs {
		if p.Want == "" && p.Twin == "" {
			continue
		}
		twin, ok := corpus.Lookup(p.Twin)
		switch {
		case !ok:
			t.Errorf("%s: twin %q is not in the corpus", p.Name, p.Twin)
		case twin.Twin != p.Name:
			t.Errorf("%s: twin %s names %q as its twin", p.Name, twin.Name, twin.Twin)
		case (p.Want == "") == (twin.Want == ""):
			t.Errorf("%s (want %q) and its twin %s (want %q) are not one buggy and one correct", p.Name, p.Want, twin.Name, twin.Want)
		}
	}
}

// TestCorpusReplay replays the saved schedule of every corpus bug many times: a schedule must
// fix the execution, so each replay ends in the same bug.
func TestCorpusReplay(t *testing.T) {
	replays := 100
	if testing.Short() {
		replays = 10
	}
	for _, p := range corpus.Programs {
		if p.Want == "" {
			continue
		}
		t.Run(p.Name, func(t *testing.T) {
			rep := explorer.Explore(p.Body, explorer.Options{})
			b := firstOfKind(rep, p.Want)
			if b == nil {
				t.Fatalf("no %s bug to replay", p.Want)
			}
			if b.Result == nil || b.Result.Verdict.Kind != b.Kind {
				t.Fatalf("detailed re-run of the bug's schedule: got %v, want %s", verdictOf(b.Result), b.Kind)
			}
			for i := range replays {
				r := explorer.Explore(p.Body, explorer.Options{Strategy: "dfs", Prefix: b.Schedule, MaxRuns: 1})
				if r.Stats.Runs != 1 || len(r.Bugs) != 1 || r.Bugs[0].Key != b.Key {
					t.Fatalf("replay %d: %d run(s), bugs %v; want exactly %s", i, r.Stats.Runs, keys(r), b.Key)
				}
			}
		})
	}
}

func firstOfKind(rep *explorer.Report, k rt.VerdictKind) *explorer.Bug {
	for _, b := range rep.Bugs {
		if b.Kind == k {
			return b
		}
	}
	return nil
}

func kinds(rep *explorer.Report) []rt.VerdictKind {
	var ks []rt.VerdictKind
	for _, b := range rep.Bugs {
		ks = append(ks, b.Kind)
	}
	return ks
}

func keys(rep *explorer.Report) []string {
	var ks []string
	for _, b := range rep.Bugs {
		ks = append(ks, b.Key)
	}
	return ks
}

func verdictOf(res *rt.Result) any {
	if res == nil {
		return "no result"
	}
	return res.Verdict
}
