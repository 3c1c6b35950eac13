package suite

import (
	"strings"
	"testing"
	"time"
)

func TestParseBudget(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want budgetSpec
		err  string
	}{
		{"60s", budgetSpec{time: time.Minute}, ""},
		{"runs=20", budgetSpec{runs: 20}, ""},
		{"1000", budgetSpec{runs: 1000}, ""},
		{"runs=20,time=20s", budgetSpec{runs: 20, time: 20 * time.Second}, ""},
		{"total=10m", budgetSpec{total: 10 * time.Minute}, ""},
		{defaultBudget, budgetSpec{total: 10 * time.Minute, time: time.Minute}, ""},
		{"total=2m,runs=500", budgetSpec{total: 2 * time.Minute, runs: 500}, ""},
		{"total=0s", budgetSpec{}, "not a positive duration"},
		{"total=soon", budgetSpec{}, "not a positive duration"},
		{"forever", budgetSpec{}, `"forever" is not a duration`},
	} {
		got, err := parseBudget(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("parseBudget(%q): error %v, want one saying %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("parseBudget(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
}

// fakeSearch is a test's search as the allocation policy sees it: it completes after
// completes of search time (never if 0), its schedule tree grows so that novelty of it is
// built in the second half of any exploration, and bug makes its verdict final.
type fakeSearch struct {
	completes time.Duration
	novelty   float64
	bug       bool
}

// simulate runs the allocation policy over searches on a fake clock: every exploration takes
// its search time (its budget, or less if it completes) plus overhead.
func simulate(total, perTest, overhead time.Duration, searches []fakeSearch) ([]*allotment, time.Duration) {
	var now time.Duration
	a := newAllocator(total, perTest, 1, func() time.Duration { return now })
	run := func(t *allotment, s fakeSearch, budget time.Duration) {
		searched, complete := budget, false
		if s.completes > 0 && s.completes <= budget {
			searched, complete = s.completes, true
		}
		now += searched + overhead
		const nodes = 1000
		samples := []sample{{at: searched / 4, decisions: int(nodes * (1 - s.novelty) / 2)}, {at: searched / 2, decisions: int(nodes * (1 - s.novelty))}, {at: searched, decisions: nodes}}
		a.done(t, pass{wall: searched + overhead, searched: searched, runs: 1, complete: complete, final: s.bug, samples: samples})
	}
	var ts []*allotment
	for i := range searches {
		ts = append(ts, a.add("p", "T"+string(rune('A'+i%26))))
	}
	for i, t := range ts {
		run(t, searches[i], a.firstBudget(t, len(ts)-i))
	}
	a.startExtra()
	for {
		t, b, ok := a.next()
		if !ok {
			break
		}
		if b > 0 {
			run(t, searches[indexOf(ts, t)], b)
		}
	}
	return ts, now
}

func indexOf(ts []*allotment, t *allotment) int {
	for i, x := range ts {
		if x == t {
			return i
		}
	}
	return -1
}

// TestAllocation checks the policy of a total budget: every test gets a first budget, time
// that completed searches do not use goes to the others, what is left after the first pass
// goes first to the searches that are still finding new schedules, and the run ends within
// its total.
func TestAllocation(t *testing.T) {
	many := func(n int, s fakeSearch) []fakeSearch {
		out := make([]fakeSearch, n)
		for i := range out {
			out[i] = s
		}
		return out
	}
	for _, tc := range []struct {
		name                     string
		total, perTest, overhead time.Duration
		searches                 []fakeSearch
		check                    func(t *testing.T, ts []*allotment)
	}{{
		name: "few tests get the per-test bound, in one pass", total: 10 * time.Minute, perTest: time.Minute,
		searches: many(3, fakeSearch{novelty: 0.5}),
		check: func(t *testing.T, ts []*allotment) {
			for _, a := range ts {
				if a.first != time.Minute || a.extra != 0 {
					t.Errorf("%s: first %v, extra %v; want the bound, 1m, and no extra time", a.test, a.first, a.extra)
				}
			}
		},
	}, {
		name: "hundreds of tests share half the total first", total: 2 * time.Minute, overhead: 100 * time.Millisecond,
		searches: many(258, fakeSearch{novelty: 0.5}),
		check: func(t *testing.T, ts []*allotment) {
			for _, a := range ts {
				if a.first < minFirst || a.first > 2*time.Minute/258 {
					t.Errorf("%s: first %v, want between %v and half of an equal share", a.test, a.first, minFirst)
				}
			}
		},
	}, {
		name: "a tiny total still gives every test its first runs", total: time.Second,
		searches: many(50, fakeSearch{novelty: 0.5}),
		check: func(t *testing.T, ts []*allotment) {
			for _, a := range ts {
				if a.first != minFirst {
					t.Errorf("%s: first %v, want the floor %v", a.test, a.first, minFirst)
				}
			}
		},
	}, {
		name: "completed searches release their time", total: time.Minute,
		searches: append(many(9, fakeSearch{completes: 10 * time.Millisecond}), fakeSearch{novelty: 0.5}),
		check: func(t *testing.T, ts []*allotment) {
			if open := ts[9]; open.extra < time.Minute/2 {
				t.Errorf("the open search got %v of extra time (%s), want more than half the total: the completed searches' time", open.extra, open.reason)
			}
			for _, a := range ts[:9] {
				if a.extra != 0 || a.reason != "search complete" {
					t.Errorf("%s: extra %v (%s), want none: its search completed", a.test, a.extra, a.reason)
				}
			}
		},
	}, {
		name: "searches still finding new schedules get the most", total: time.Minute, overhead: 50 * time.Millisecond,
		searches: []fakeSearch{{novelty: 0}, {novelty: 0.4}, {novelty: 0.8}, {bug: true, novelty: 0.8}, {completes: time.Second}},
		check: func(t *testing.T, ts []*allotment) {
			none, some, most, bug, done := ts[0], ts[1], ts[2], ts[3], ts[4]
			if !(most.extra > some.extra && some.extra >= none.extra) {
				t.Errorf("extra time %v, %v, %v for novelty 0.8, 0.4, 0: want the most to the most novel, no more to the less", most.extra, some.extra, none.extra)
			}
			if bug.extra != 0 || done.extra != 0 {
				t.Errorf("extra time %v to a bug's test, %v to a complete search: want none", bug.extra, done.extra)
			}
			if !strings.Contains(most.why(), "extra time") || !strings.Contains(bug.why(), "verdict is final") {
				t.Errorf("reasons: %q, %q", most.why(), bug.why())
			}
		},
	}, {
		name: "extra time that would not double the first budget is not given", total: 10 * time.Second,
		searches: append(many(4, fakeSearch{novelty: 0}), fakeSearch{novelty: 1}),
		check: func(t *testing.T, ts []*allotment) {
			for _, a := range ts {
				if a.extra != 0 && a.extra < 2*a.first {
					t.Errorf("%s: extra %v for a first budget of %v", a.test, a.extra, a.first)
				}
			}
			if ts[4].extra == 0 {
				t.Errorf("the novel search got no extra time: %s", ts[4].reason)
			}
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			ts, end := simulate(tc.total, tc.perTest, tc.overhead, tc.searches)
			// The run ends within its total, unless the floor of the first budgets exceeds it.
			floor := time.Duration(len(ts)) * (minFirst + tc.overhead)
			if end > max(tc.total, floor)+tc.overhead {
				t.Errorf("the run took %v of a total of %v", end, tc.total)
			}
			tc.check(t, ts)
		})
	}
}

func TestNovelty(t *testing.T) {
	for _, tc := range []struct {
		name string
		ss   []sample
		end  time.Duration
		want float64
	}{
		{"no progress seen", nil, time.Second, unknownNovelty},
		{"no schedule tree (samplers)", []sample{{at: time.Second}}, time.Second, unknownNovelty},
		{"even growth", []sample{{at: 500 * time.Millisecond, decisions: 50}, {at: time.Second, decisions: 100}}, time.Second, 0.5},
		{"stopped growing", []sample{{at: 200 * time.Millisecond, decisions: 100}, {at: time.Second, decisions: 100}}, time.Second, 0},
		{"a new bug late", []sample{{at: 100 * time.Millisecond, decisions: 100}, {at: time.Second, decisions: 100, bugs: 1}}, time.Second, 1},
	} {
		if got := novelty(tc.ss, tc.end); got != tc.want {
			t.Errorf("%s: novelty %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestLanes checks that explorations side by side share the lanes' time: each of two lanes
// has the whole total, but no one exploration gets more than the wall-clock time left.
func TestLanes(t *testing.T) {
	var now time.Duration
	a := newAllocator(time.Minute, 0, 2, func() time.Duration { return now })
	var ts []*allotment
	for range 100 {
		ts = append(ts, a.add("p", "T"))
	}
	if d := a.firstBudget(ts[0], 100); d != 600*time.Millisecond {
		t.Errorf("first budget %v with two lanes, a total of 1m and 100 tests, want 600ms (half of 2m, over 100 tests)", d)
	}
	a.done(ts[0], pass{wall: time.Second, searched: time.Second, samples: []sample{{at: time.Second, decisions: 10}}})
	for _, x := range ts[1:] {
		a.done(x, pass{complete: true})
	}
	now = 55 * time.Second
	a.startExtra()
	if x, d, ok := a.next(); !ok || x != ts[0] || d != 5*time.Second {
		t.Errorf("next: %v, %v, %v; want the open test, with the 5s of wall-clock time left (the lanes have 10s)", x, d, ok)
	}
}
