package wire

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"github.com/heddledbg/heddle/rt"
)

func TestUndeltaCorrupt(t *testing.T) {
	for _, tc := range []struct {
		name string
		log  string
	}{
		{"head past the previous point", `[{"alts":[{"G":1}]},{"altsKept":{"head":2}}]`},
		{"head and tail overlap", `[{"alts":[{"G":1},{"G":2}]},{"altsKept":{"head":1,"tail":2}}]`},
		{"negative", `[{"alts":[{"G":1}]},{"sleepKept":{"tail":-1}}]`},
		{"first point keeps", `[{"altsKept":{"head":1}}]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ls []LoggedPoint
			if err := json.Unmarshal([]byte(tc.log), &ls); err != nil {
				t.Fatal(err)
			}
			if err := Undelta(ls); err == nil {
				t.Errorf("Undelta(%s) = nil, want an error", tc.log)
			}
		})
	}
}

// FuzzDelta checks that Undelta restores what Delta rewrote, and that any log a message may
// hold is restored or refused, never a panic.
func FuzzDelta(f *testing.F) {
	f.Add([]byte{1, 2, 3, 3, 2, 1}, `[{"alts":[{"G":1}]},{"alts":[],"altsKept":{"head":1}}]`)
	f.Add([]byte{5, 5, 5, 0, 9}, `[{"sleep":[{"g":1}]},{"sleepKept":{"tail":1}}]`)
	f.Fuzz(func(t *testing.T, shape []byte, msg string) {
		var ls []LoggedPoint
		if json.Unmarshal([]byte(msg), &ls) == nil {
			_ = Undelta(ls)
		}
		// A log whose points' lists are taken from shape: each byte a point's list length,
		// its elements numbered from the byte's value, so neighbours share runs of them.
		var log []LoggedPoint
		for i, b := range shape {
			p := LoggedPoint{Pick: i}
			for j := range int(b % 8) {
				p.Alts = append(p.Alts, rt.Alt{G: rt.GID(int(b)/8 + j)})
				if j%3 == 0 {
					p.Sleep = append(p.Sleep, Sleeper{G: rt.GID(j)})
				}
			}
			log = append(log, p)
		}
		var ds []rt.Decision
		for _, p := range log {
			d := rt.Decision{Pick: int32(p.Pick)}
			for _, a := range p.Alts {
				d.Alts = append(d.Alts, int32(a.G))
			}
			ds = append(ds, d)
		}
		sentDs, kept := DeltaDecisions(ds)
		b, err := json.Marshal(sentDs)
		if err != nil {
			t.Fatal(err)
		}
		var gotDs []rt.Decision
		if err := json.Unmarshal(b, &gotDs); err != nil {
			t.Fatal(err)
		}
		if err := UndeltaDecisions(gotDs, kept); err != nil {
			t.Fatal(err)
		}
		for i := range ds {
			if !slices.Equal(ds[i].Alts, gotDs[i].Alts) {
				t.Fatalf("decision %d: %v after the wire, want %v", i, gotDs[i].Alts, ds[i].Alts)
			}
		}

		sent := make([]LoggedPoint, len(log))
		copy(sent, log)
		Delta(sent)
		b, err = json.Marshal(sent)
		if err != nil {
			t.Fatal(err)
		}
		var got []LoggedPoint
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		if err := Undelta(got); err != nil {
			t.Fatal(err)
		}
		for i := range log {
			if len(log[i].Alts) != len(got[i].Alts) || len(log[i].Sleep) != len(got[i].Sleep) ||
				(len(log[i].Alts) > 0 && !reflect.DeepEqual(log[i].Alts, got[i].Alts)) ||
				(len(log[i].Sleep) > 0 && !reflect.DeepEqual(log[i].Sleep, got[i].Sleep)) {
				t.Fatalf("point %d: %+v after the wire, want %+v", i, got[i], log[i])
			}
		}
	})
}

func TestUndeltaDecisionsCorrupt(t *testing.T) {
	ds := []rt.Decision{{Alts: []int32{1, 2}}, {Alts: []int32{3}}}
	for _, ks := range [][]Kept{
		{{}},
		{{Head: 1}, {}},
		{{}, {Head: 2, Tail: 1}},
		{{}, {Tail: 3}},
	} {
		if err := UndeltaDecisions(slices.Clone(ds), ks); err == nil {
			t.Errorf("UndeltaDecisions with %v = nil, want an error", ks)
		}
	}
}
