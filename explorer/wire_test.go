package explorer

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/heddledbg/heddle/rt"
	"github.com/heddledbg/heddle/wire"
)

// TestGuideWire sends a guide and its log through the worker protocol's JSON, as a controller
// and a worker do in an isolated exploration, and checks that both arrive whole.
func TestGuideWire(t *testing.T) {
	gd := &Guide{
		Prefix: []int32{1, 2, 0},
		Kinds:  []rt.DecisionKind{rt.DecideGoroutine, rt.DecideGoroutine, rt.DecideSelect},
		Names:  []string{"G1", "G1.1", "1"},
		Sleep:  []Sleeper{{G: 2, Op: rt.OpLock, Objs: []rt.ObjID{7}}},
		Policy: PolicyPCT,
		Seed:   42,
		Depth:  3,
		Length: 100,
		Bound:  -1,
		Shard:  1,
		Shards: 2,
		Plan:   []PlanStep{{G: 1}, {G: 2, Data: []int32{0, 1}}},
		// The part of the shard, and where the split starts.
		Part: 1, Parts: 3, SplitFrom: 1,
		Watch:    []string{"x.go:3:2", "x.go:7:2"},
		Serial:   true,
		Timeouts: true,
		Timeout:  "x.go:9",
	}
	// A field added to Guide must be carried by wire.Guide, and set here.
	v := reflect.ValueOf(gd).Elem()
	for i := 0; i < v.NumField(); i++ {
		if f := v.Type().Field(i); f.IsExported() && v.Field(i).IsZero() {
			t.Fatalf("set Guide.%s in this test", f.Name)
		}
	}
	var w wire.Guide
	roundTrip(t, gd.Wire(), &w)
	if got := GuideOf(&w); !reflect.DeepEqual(got, gd) {
		t.Errorf("guide after the wire:\n%+v\nwant\n%+v", got, gd)
	}

	gd.log = []logged{
		{kind: rt.DecideGoroutine, alts: []rt.Alt{{G: 1, Op: rt.OpLock, Obj: 7}, {G: 2, Op: rt.OpUnlock, Obj: 7}}, pick: 1, current: 0, sleep: []Sleeper{{G: 3, Op: rt.OpLock, Objs: []rt.ObjID{7}}}, planAt: 2},
		{kind: rt.DecideSelect, alts: []rt.Alt{{G: 2, Case: 0}, {G: 2, Case: 1}}, pick: 0, current: 0, planAt: -1},
		// Points that share the previous one's alternatives or sleepers at one end, both or
		// neither: they go as changes.
		{kind: rt.DecideGoroutine, alts: []rt.Alt{{G: 2, Case: 0}, {G: 3, Op: rt.OpSelect, Objs: []rt.ObjID{4, 5}}}, pick: 1, current: 1, sleep: []Sleeper{{G: 3, Op: rt.OpLock, Objs: []rt.ObjID{7}}}, planAt: -1},
		{kind: rt.DecideGoroutine, alts: []rt.Alt{{G: 1, Op: rt.OpLock, Obj: 7}, {G: 2, Case: 0}, {G: 3, Op: rt.OpSelect, Objs: []rt.ObjID{4, 5}}}, pick: 0, current: -1, sleep: []Sleeper{{G: 3, Op: rt.OpLock, Objs: []rt.ObjID{7}}, {G: 4, Op: rt.OpSend}}, planAt: -1},
		{kind: rt.DecideGoroutine, alts: []rt.Alt{{G: 1, Op: rt.OpLock, Obj: 7}, {G: 2, Op: rt.OpRecv}, {G: 3, Op: rt.OpSelect, Objs: []rt.ObjID{4, 6}}}, pick: 0, current: 0, planAt: -1},
		{kind: rt.DecideGoroutine, alts: []rt.Alt{{G: 1, Op: rt.OpLock, Obj: 7}, {G: 2, Op: rt.OpRecv}, {G: 3, Op: rt.OpSelect, Objs: []rt.ObjID{4, 6}}}, pick: 2, current: 0, planAt: -1},
	}
	var log []wire.LoggedPoint
	roundTrip(t, gd.Log(), &log)
	if len(log[5].Alts) != 0 || log[5].AltsKept != (wire.Kept{Head: 3}) || len(log[4].Alts) != 2 || log[4].AltsKept != (wire.Kept{Head: 1}) {
		t.Errorf("the log's last points are not sent as changes: %+v, %+v", log[4], log[5])
	}
	back := &Guide{}
	if err := back.SetLog(log, "diverged at decision 3"); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.log, gd.log) {
		t.Errorf("log after the wire:\n%+v\nwant\n%+v", back.log, gd.log)
	}
	if back.Diverged() != "diverged at decision 3" {
		t.Errorf("Diverged() = %q", back.Diverged())
	}
}

func roundTrip(t *testing.T, in, out any) {
	t.Helper()
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatal(err)
	}
}
