package record

import (
	"fmt"
	"strings"
	"testing"
)

// TestMergeTrees: the trees of shares of a search become one, the paths they share once, the
// runs (leaves) all kept, and the result a valid tree.
func TestMergeTrees(t *testing.T) {
	dec := func(id, parent int, g string, enabled ...string) Node {
		return Node{ID: id, Parent: parent, Kind: "goroutine", G: g, Op: "lock", Obj: "mu", Enabled: enabled}
	}
	leaf := func(id, parent int, g, verdict string) Node {
		return Node{ID: id, Parent: parent, G: g, Op: "lock", Obj: "mu", Leaf: &Leaf{Verdict: verdict}}
	}
	for _, c := range []struct {
		name  string
		trees [][]Node
		want  string // each node as id<parent:edge, leaves with their verdict
	}{
		{"one tree", [][]Node{{dec(0, -1, "", "G1", "G2"), leaf(1, 0, "G1", "ok"), leaf(2, 0, "G2", "deadlock")}},
			"0<-1: 1<0:G1=ok 2<0:G2=deadlock"},
		{"shared root", [][]Node{
			{dec(0, -1, "", "G1", "G2"), leaf(1, 0, "G1", "ok")},
			{dec(0, -1, "", "G1", "G2"), leaf(1, 0, "G2", "deadlock")},
		}, "0<-1: 1<0:G1=ok 2<0:G2=deadlock"},
		{"shared path, ids apart", [][]Node{
			{dec(0, -1, "", "G1", "G2"), dec(1, 0, "G1", "G2", "G3"), leaf(2, 1, "G2", "ok")},
			{dec(5, -1, "", "G1", "G2"), dec(7, 5, "G1", "G2", "G3"), leaf(9, 7, "G3", "ok"), dec(10, 5, "G2", "G1"), leaf(11, 10, "G1", "ok")},
		}, "0<-1: 1<0:G1 2<1:G2=ok 3<1:G3=ok 4<0:G2 5<4:G1=ok"},
		{"leaves never merge", [][]Node{
			{dec(0, -1, "", "G1"), leaf(1, 0, "G1", "ok")},
			{dec(0, -1, "", "G1"), leaf(1, 0, "G1", "ok")},
		}, "0<-1: 1<0:G1=ok 2<0:G1=ok"},
		{"orphan dropped", [][]Node{{dec(0, -1, "", "G1"), leaf(1, 4, "G1", "ok")}}, "0<-1:"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := MergeTrees(c.trees...)
			var parts []string
			ids := map[int]bool{}
			for i := range got {
				n := &got[i]
				if _, err := n.Check(ids, nil); err != nil {
					t.Fatalf("node %d: %v", n.ID, err)
				}
				s := fmt.Sprintf("%d<%d:%s", n.ID, n.Parent, n.G)
				if n.Leaf != nil {
					s += "=" + n.Leaf.Verdict
				}
				parts = append(parts, s)
			}
			if g := strings.Join(parts, " "); g != c.want {
				t.Errorf("got  %s\nwant %s", g, c.want)
			}
		})
	}
}

// TestMergeTreesPruned: a node in several trees gets the alternatives pruned in any of them,
// once each.
func TestMergeTreesPruned(t *testing.T) {
	a := []Node{{ID: 0, Parent: -1, Enabled: []string{"G1", "G2", "G3"}, Pruned: []Pruned{{G: "G2", Reason: "sleep"}}}}
	b := []Node{{ID: 0, Parent: -1, Enabled: []string{"G1", "G2", "G3"}, Pruned: []Pruned{{G: "G2", Reason: "sleep"}, {G: "G3", Reason: "persistent"}}}}
	got := MergeTrees(a, b)
	if len(got) != 1 || fmt.Sprint(got[0].Pruned) != "[{G2 sleep} {G3 persistent}]" {
		t.Errorf("merged %+v", got)
	}
	if len(a[0].Pruned) != 1 {
		t.Errorf("the input tree changed: %+v", a[0])
	}
}
