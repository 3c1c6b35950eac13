package rt_test

import (
	"fmt"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/heddledbg/heddle/rt"
)

// standIn pairs a stand-in with the standard type it replaces. Sizes and alignments are taken
// with unsafe, as a program that depends on them takes them: a constant expression such as
// xsync's cacheLineSize - unsafe.Sizeof(bucket{}) must not change under heddle.
type standIn struct {
	name                           string
	size, stdSize, align, stdAlign uintptr
	typ, std                       reflect.Type
}

func pair[S, T any](name string) standIn {
	var s S
	var t T
	return standIn{
		name: name,
		size: unsafe.Sizeof(s), stdSize: unsafe.Sizeof(t),
		align: unsafe.Alignof(s), stdAlign: unsafe.Alignof(t),
		typ: reflect.TypeFor[S](), std: reflect.TypeFor[T](),
	}
}

var standIns = []standIn{
	pair[rt.Mutex, sync.Mutex]("Mutex"),
	pair[rt.RWMutex, sync.RWMutex]("RWMutex"),
	pair[rt.WaitGroup, sync.WaitGroup]("WaitGroup"),
	pair[rt.Once, sync.Once]("Once"),
	pair[rt.Cond, sync.Cond]("Cond"),
	pair[rt.Map, sync.Map]("Map"),
	pair[rt.Pool, sync.Pool]("Pool"),
	pair[rt.Bool, atomic.Bool]("atomic.Bool"),
	pair[rt.Int32, atomic.Int32]("atomic.Int32"),
	pair[rt.Int64, atomic.Int64]("atomic.Int64"),
	pair[rt.Uint32, atomic.Uint32]("atomic.Uint32"),
	pair[rt.Uint64, atomic.Uint64]("atomic.Uint64"),
	pair[rt.Uintptr, atomic.Uintptr]("atomic.Uintptr"),
	pair[rt.Pointer[int], atomic.Pointer[int]]("atomic.Pointer[int]"),
	pair[rt.Pointer[[64]byte], atomic.Pointer[[64]byte]]("atomic.Pointer[[64]byte]"),
	pair[rt.Value, atomic.Value]("atomic.Value"),
}

// TestStandInSizes checks that every stand-in has the size and alignment of the type it
// replaces in the Go that runs the test.
func TestStandInSizes(t *testing.T) {
	for _, s := range standIns {
		t.Run(s.name, func(t *testing.T) {
			if s.size != s.stdSize {
				t.Errorf("unsafe.Sizeof(%v) = %d, unsafe.Sizeof(%v) = %d", s.typ, s.size, s.std, s.stdSize)
			}
			if s.align != s.stdAlign {
				t.Errorf("unsafe.Alignof(%v) = %d, unsafe.Alignof(%v) = %d", s.typ, s.align, s.std, s.stdAlign)
			}
		})
	}
}

// TestStandInLayout checks that every stand-in has the standard type's words: the same
// offsets, sizes, and pointers where the standard type has pointers. Outside any run rt uses a
// stand-in's bytes as the standard type (a Cond and a Pool by a conversion of their address),
// so the garbage collector must find the standard type's pointers in them.
func TestStandInLayout(t *testing.T) {
	for _, s := range standIns {
		t.Run(s.name, func(t *testing.T) {
			got, want := words(s.typ, 0, nil), words(s.std, 0, nil)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%v has words %v, %v has %v", s.typ, got, s.std, want)
			}
		})
	}
}

// TestStandInFields checks that the fields that the standard types export are at the same
// offsets in the stand-ins.
func TestStandInFields(t *testing.T) {
	for _, tc := range []struct {
		name      string
		got, want uintptr
	}{
		{"Cond.L", unsafe.Offsetof(rt.Cond{}.L), unsafe.Offsetof(sync.Cond{}.L)},
		{"Pool.New", unsafe.Offsetof(rt.Pool{}.New), unsafe.Offsetof(sync.Pool{}.New)},
	} {
		if tc.got != tc.want {
			t.Errorf("%s is at offset %d, want %d", tc.name, tc.got, tc.want)
		}
	}
}

// A word is one field of a type's flattened layout.
type word struct {
	Offset, Size uintptr
	Pointers     bool
}

// words appends the non-empty leaf fields of t, at offset off, to ws.
func words(t reflect.Type, off uintptr, ws []word) []word {
	switch {
	case t.Size() == 0:
		return ws
	case t.Kind() == reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			ws = words(f.Type, off+f.Offset, ws)
		}
		return ws
	case t.Kind() == reflect.Array:
		for i := range t.Len() {
			ws = words(t.Elem(), off+uintptr(i)*t.Elem().Size(), ws)
		}
		return ws
	}
	var p bool
	switch t.Kind() {
	case reflect.Pointer, reflect.UnsafePointer, reflect.Map, reflect.Chan, reflect.Func,
		reflect.Interface, reflect.Slice, reflect.String:
		p = true
	}
	return append(ws, word{off, t.Size(), p})
}

// TestStandInRuns checks the life of a stand-in's state across runs: an object first used in
// a run starts as a zero value there, whatever an earlier run left in it, and outside any run
// it is the standard type, which the runs do not touch. vars holds the objects that outlive a
// run, as package-level variables do.
func TestStandInRuns(t *testing.T) {
	type vars struct {
		mu   rt.Mutex
		rw   rt.RWMutex
		wg   rt.WaitGroup
		once rt.Once
		pool rt.Pool
		n    int
	}
	for _, tc := range []struct {
		name string
		// first and second are run in turn on the same vars; outside is called after both,
		// outside any run.
		first, second func(v *vars)
		outside       func(t *testing.T, v *vars)
	}{
		{
			name:   "mutex left locked",
			first:  func(v *vars) { v.mu.Lock() },
			second: func(v *vars) { v.mu.Lock(); v.mu.Unlock() },
			outside: func(t *testing.T, v *vars) {
				if !v.mu.TryLock() {
					t.Error("a run's Lock left the standard mutex locked")
				}
			},
		},
		{
			name:   "rwmutex left read-locked",
			first:  func(v *vars) { v.rw.RLock() },
			second: func(v *vars) { v.rw.Lock(); v.rw.Unlock() },
			outside: func(t *testing.T, v *vars) {
				if !v.rw.TryLock() {
					t.Error("a run's RLock left the standard RWMutex locked")
				}
			},
		},
		{
			name:   "waitgroup left above zero",
			first:  func(v *vars) { v.wg.Add(1) },
			second: func(v *vars) { v.wg.Wait() },
			outside: func(t *testing.T, v *vars) {
				v.wg.Wait() // returns at once: runs do not count on the standard counter
			},
		},
		{
			name:   "once done",
			first:  func(v *vars) { v.once.Do(func() { v.n++ }) },
			second: func(v *vars) { v.once.Do(func() { v.n++ }) },
			outside: func(t *testing.T, v *vars) {
				v.once.Do(func() { v.n++ })
				if v.n != 3 {
					t.Errorf("f ran %d times in two runs and outside, want 3", v.n)
				}
			},
		},
		{
			name: "pool empty in each run",
			first: func(v *vars) {
				v.pool.New = func() any { return "new" }
				v.pool.Put("first")
			},
			second: func(v *vars) {
				if x := v.pool.Get(); x != "new" {
					panic(fmt.Sprintf("Get returned %v from an earlier run", x))
				}
			},
			outside: func(t *testing.T, v *vars) {
				if x := v.pool.Get(); x != "new" {
					t.Errorf("Get outside any run returned %v, want New's value", x)
				}
			},
		},
	} {
		for _, mirror := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/mirror=%v", tc.name, mirror), func(t *testing.T) {
				v := new(vars)
				for i, body := range []func(*vars){tc.first, tc.second} {
					res := rt.Run(rt.Config{Mirror: mirror}, func() { body(v) })
					if res.Verdict.Kind != rt.VerdictOK {
						t.Fatalf("run %d: verdict %s: %s", i+1, res.Verdict.Kind, res.Verdict.Message)
					}
				}
				tc.outside(t, v)
			})
		}
	}
}

// TestStandInMirror checks the words of the stand-ins in a run that mirrors their states for
// a debugger: at each moment, what Go's sync would store there, and the held lock's number in
// the semaphore word; at the run's end, zero values.
func TestStandInMirror(t *testing.T) {
	var (
		mu   rt.Mutex
		rw   rt.RWMutex
		wg   rt.WaitGroup
		once rt.Once
	)
	words := func(p unsafe.Pointer, n int) []uint32 { return unsafe.Slice((*uint32)(p), n) }
	type check struct {
		what      string
		got, want []uint32
	}
	var checks []check
	snap := func(what string, p unsafe.Pointer, want ...uint32) {
		checks = append(checks, check{what, append([]uint32(nil), words(p, len(want))...), want})
	}
	var lockID uint32
	res := rt.Run(rt.Config{Mirror: true}, func() {
		mu.Lock()
		lockID = words(unsafe.Pointer(&mu), 2)[1]
		snap("locked Mutex", unsafe.Pointer(&mu), 1, lockID)
		mu.Unlock()
		snap("unlocked Mutex", unsafe.Pointer(&mu), 0, 0)
		rw.RLock()
		rw.RLock()
		snap("RWMutex read-locked twice", unsafe.Pointer(&rw), 0, 0, 0, 0, 2)
		rw.RUnlock()
		rw.RUnlock()
		rw.Lock()
		snap("RWMutex write-locked", unsafe.Pointer(&rw), 1, words(unsafe.Pointer(&rw), 2)[1], 0, 0, 0)
		wg.Add(3)
		snap("WaitGroup at 3", unsafe.Pointer(&wg), 0, 3)
		once.Do(func() { snap("Once running", unsafe.Pointer(&once), 0, 1) })
		snap("Once done", unsafe.Pointer(&once), 1, 0)
		mu.Lock() // held at the run's end
	})
	if res.Verdict.Kind != rt.VerdictOK {
		t.Fatalf("verdict %s: %s", res.Verdict.Kind, res.Verdict.Message)
	}
	if lockID == 0 || rt.ObjOfLock(lockID) == rt.NoObj {
		t.Errorf("the held Mutex's semaphore word is %d, want its number in the run plus one", lockID)
	}
	for _, c := range checks {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("%s: words %v, want %v", c.what, c.got, c.want)
		}
	}
	for _, c := range []struct {
		what string
		p    unsafe.Pointer
		n    int
	}{{"Mutex", unsafe.Pointer(&mu), 2}, {"RWMutex", unsafe.Pointer(&rw), 6}, {"WaitGroup", unsafe.Pointer(&wg), 3}, {"Once", unsafe.Pointer(&once), 3}} {
		if w := words(c.p, c.n); slices.ContainsFunc(w, func(x uint32) bool { return x != 0 }) {
			t.Errorf("after the run, the %s's words are %v, want zeros", c.what, w)
		}
	}
}

// copyOf returns a copy of *x: go vet's copylocks does not see through the type parameter, as
// it does not see the copies of zero values that programs make (a struct literal's fields
// copied from a template, an append to a slice of values).
func copyOf[T any](x *T) T { return *x }

// TestStandInCopies checks that copies of zero values are objects of their own in a run.
func TestStandInCopies(t *testing.T) {
	type guarded struct {
		mu rt.Mutex
		wg rt.WaitGroup
	}
	res := rt.Run(rt.Config{}, func() {
		a := guarded{}
		b := copyOf(&a)
		c := []guarded{copyOf(&a), copyOf(&b)}
		a.mu.Lock()
		b.mu.Lock()
		c[0].mu.Lock()
		c[1].mu.Lock()
		a.wg.Add(1)
		b.wg.Wait()
	})
	if res.Verdict.Kind != rt.VerdictOK {
		t.Fatalf("verdict %s: %s", res.Verdict.Kind, res.Verdict.Message)
	}
}

// TestCondOutside checks a Cond outside any run, which is sync.Cond in place: its wait list is
// the runtime's, and its L the same field.
func TestCondOutside(t *testing.T) {
	var mu rt.Mutex
	c := rt.NewCond(&mu)
	ready, done := false, make(chan struct{})
	go func() {
		c.L.Lock()
		for !ready {
			c.Wait()
		}
		c.L.Unlock()
		close(done)
	}()
	c.L.Lock()
	ready = true
	c.Broadcast()
	c.L.Unlock()
	<-done
}

// TestStandInMany checks that the side table keeps the state of every object as it grows.
func TestStandInMany(t *testing.T) {
	res := rt.Run(rt.Config{}, func() {
		ms := make([]rt.Mutex, 1000)
		for i := range ms {
			ms[i].Lock()
		}
		for i := range ms {
			if ms[i].TryLock() {
				panic(fmt.Sprintf("mutex %d: TryLock succeeded on a held mutex", i))
			}
			ms[i].Unlock()
		}
	})
	if res.Verdict.Kind != rt.VerdictOK {
		t.Fatalf("verdict %s: %s", res.Verdict.Kind, res.Verdict.Message)
	}
}
