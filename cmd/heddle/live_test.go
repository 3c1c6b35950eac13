package main

import (
	"testing"

	"github.com/heddledbg/heddle/server"
	"github.com/heddledbg/heddle/timeline"
)

// The live web view has one tree, while every test explored, and every shard of a test,
// numbers its tree from 0: each reaches the view as a root of its own, and none is refused.
func TestLiveTreeOfSeveralTestsAndShards(t *testing.T) {
	srv, err := server.New(server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	r := &reporter{srv: srv, f: testFlags{workers: 2}}
	tree := []timeline.Node{
		{ID: 0, Parent: -1, Kind: "goroutine", Enabled: []string{"G1", "G1.1"}},
		{ID: 1, Parent: 0, G: "G1.1", Op: "lock", Enabled: []string{"G1"}},
		{ID: 2, Parent: 1, G: "G1", Op: "lock", Leaf: &timeline.Leaf{Verdict: "deadlock", Key: "deadlock|x.go:3"}},
		{ID: 0, Parent: timeline.Revisit, Pruned: []timeline.Pruned{{G: "G1", Reason: "sleep"}}},
	}
	for _, test := range []string{"TestA", "TestB"} {
		r.begin("p", test)
		for shard := range 2 {
			for i := range tree {
				r.publishNode(shard, &tree[i])
			}
		}
	}
	if r.published != nil {
		t.Fatalf("the web view refused a node: %v", r.published)
	}
	if r.liveNext != 12 {
		t.Errorf("the next free id is %d, want 12 after 2 tests of 2 shards of 3 nodes", r.liveNext)
	}
	// As the explorer numbers them, the second tree's nodes collide with the first's.
	if err := srv.Publish(tree[0]); err == nil {
		t.Error("the view accepted node 0 twice")
	}
}
