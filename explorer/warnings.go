package explorer

import "github.com/heddledbg/heddle/rt"

// A Warning is a distinct finding of a predictive check (rt.Warning) over an exploration:
// shown in the report, not a bug on its own. It is filed once per exploration, under its key.
type Warning struct {
	Kind    string `json:"kind"`
	Key     string `json:"key"`
	Message string `json:"message"`
	Hits    int    `json:"hits"` // runs that showed it
	// Strategy and Run say which member of the search found it first, in which run.
	Strategy string `json:"strategy,omitempty"`
	Run      int    `json:"run,omitempty"`
}

// addWarnings files the warnings of run res.
func (e *explorer) addWarnings(res *rt.Result) {
	for i := range res.Warnings {
		rw := &res.Warnings[i]
		key := rw.Key()
		if w := e.warnings[key]; w != nil {
			w.Hits++
			continue
		}
		w := &Warning{Kind: rw.Kind, Key: key, Message: rw.Message(res), Hits: 1, Strategy: e.member, Run: e.rep.Stats.Runs}
		if e.warnings == nil {
			e.warnings = map[string]*Warning{}
		}
		e.warnings[key] = w
		e.rep.Warnings = append(e.rep.Warnings, w)
	}
}

// MergeWarnings adds the warnings ws of one shard to those of the others, once per key.
func MergeWarnings(all []*Warning, ws []*Warning) []*Warning {
	for _, w := range ws {
		found := false
		for _, o := range all {
			if o.Key == w.Key {
				o.Hits += w.Hits
				found = true
				break
			}
		}
		if !found {
			c := *w
			all = append(all, &c)
		}
	}
	return all
}
