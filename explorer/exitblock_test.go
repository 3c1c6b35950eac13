package explorer

import (
	"fmt"
	"testing"

	"github.com/heddledbg/heddle/rt"
)

func TestScratch(t *testing.T) {
	body := func() {
		var a, b rt.Mutex
		var wg rt.WaitGroup
		wg.Add(2)
		rt.Go(func() { defer wg.Done(); a.Lock(); b.Lock(); b.Unlock(); a.Unlock() })
		rt.Go(func() { defer wg.Done(); b.Lock(); a.Lock(); a.Unlock(); b.Unlock() })
		wg.Wait()
	}
	res := rt.Run(rt.Config{}, body)
	for _, e := range res.Events {
		fmt.Printf("%+v\n", e)
	}
	for _, d := range res.Decisions {
		fmt.Printf("D %+v\n", d)
	}
	fmt.Println(res.Verdict, res.Pending)
	for _, s := range Strategies {
		if s == "random" || s == "pct" { continue }
		r := Explore(body, Options{Strategy: s})
		fmt.Println(s, r.Stats.Runs, len(r.Bugs))
	}
}
