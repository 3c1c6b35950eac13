package suite

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/heddledbg/heddle/record"
	"github.com/heddledbg/heddle/server"
)

// Every test explored, and every shard of a test, numbers its tree from 0: each reaches the
// live web view with ids of its own, none is refused, and each test's nodes follow a start
// message that names the test, so that the view shows one tree per test.
func TestLiveTreeOfSeveralTestsAndShards(t *testing.T) {
	srv, err := server.New(server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	r := &reporter{srv: srv, f: Flags{workers: 2}}
	tree := []record.Node{
		{ID: 0, Parent: -1, Kind: "goroutine", Enabled: []string{"G1", "G1.1"}},
		{ID: 1, Parent: 0, G: "G1.1", Op: "lock", Enabled: []string{"G1"}},
		{ID: 2, Parent: 1, G: "G1", Op: "lock", Leaf: &record.Leaf{Verdict: "deadlock", Key: "deadlock|x.go:3"}},
		{ID: 0, Parent: record.Revisit, Pruned: []record.Pruned{{G: "G1", Reason: "sleep"}}},
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

	// What a page that connects now receives: each test's start, then its nodes.
	u := "ws://" + srv.Addr() + "/ws?token=" + srv.Token()
	c, _, err := websocket.DefaultDialer.Dial(u, http.Header{"Origin": {"http://" + srv.Addr()}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var got []string
	for len(got) < 1+2*(1+6) {
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		var m struct {
			Type    string          `json:"type"`
			Program *record.Program `json:"program"`
		}
		if err := c.ReadJSON(&m); err != nil {
			t.Fatalf("after %v: %v", got, err)
		}
		if m.Type == "start" {
			m.Type += " " + m.Program.Test
		}
		got = append(got, m.Type)
	}
	nodes := strings.TrimSuffix(strings.Repeat("node ", 6), " ")
	if want := "hello start TestA " + nodes + " start TestB " + nodes; strings.Join(got, " ") != want {
		t.Errorf("the stream says\n%s\nwant\n%s", strings.Join(got, " "), want)
	}
}
