package rt

import (
	"strings"
	"testing"
	"time"
	"unsafe"
)

// TestMonotonic checks timeLayout against Go's time.Time, and that a run's readings compare
// with a real reading taken before the run as Go's own would: later, by a little.
func TestMonotonic(t *testing.T) {
	if unsafe.Sizeof(time.Time{}) != unsafe.Sizeof(timeLayout{}) {
		t.Fatalf("time.Time is %d bytes, timeLayout %d", unsafe.Sizeof(time.Time{}), unsafe.Sizeof(timeLayout{}))
	}
	real := time.Now()
	m, ok := monoOf(real)
	if !ok {
		t.Fatal("time.Now has no monotonic reading in timeLayout's place")
	}
	want := clockBase.Add(5 * time.Second)
	v := withMono(want, m+int64(5*time.Second))
	if got := v.Sub(real); got != 5*time.Second {
		t.Errorf("a virtual instant 5s after a real one's monotonic reading: Sub = %v", got)
	}
	if !v.UTC().Equal(want) || v.UTC() != want {
		t.Errorf("its wall clock = %v, want %v", v.UTC(), want)
	}
	if !strings.Contains(v.String(), " m=+") {
		t.Errorf("String = %q, want a monotonic reading", v)
	}

	start := Now() // outside any run, as a package's initialization reads it
	var since []time.Duration
	var printed []string
	for range 2 {
		Run(Config{}, func() {
			since = append(since, Since(start))
			printed = append(printed, Now().String())
		})
	}
	for _, d := range since {
		if d <= 0 || d > 2*time.Second {
			t.Errorf("in a run, Since(a reading taken before it) = %v, want within (0, 2s]", d)
		}
	}
	if printed[0] != printed[1] {
		t.Errorf("two runs printed %q and %q: a run's readings must not depend on the process", printed[0], printed[1])
	}
}
