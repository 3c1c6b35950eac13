package bidir

import "sync"

// Hit is a breakpoint hit of the recorded execution, and how to reach it again.
type Hit struct {
	Stop Stop
	// Nth says how to reach the hit from checkpoint Stop.Checkpoint: it is the Nth stop of a
	// continue from there. 0 marks the start of the run, -1 a place that cannot be reached by
	// continuing.
	Nth int
}

// Hits remembers the breakpoint hits that continuing met along the recorded execution, so
// that a reverse continue to a hit already seen replays straight to it instead of searching
// for it. A chain of continues from a known place with unchanged breakpoints proves that no
// other hit lies between its stops. Hits is safe for concurrent use; it must be cleared when
// the breakpoints or the schedule change.
type Hits struct {
	mu    sync.Mutex
	chain []Hit
	// serials name the chain's hits: a hit keeps its serial while it stays on the chain,
	// and no other hit ever has it.
	serials []int
	serial  int
	at      int // index in chain of the current stop; -1 off the chain
}

// add appends hit to the chain.
func (h *Hits) add(hit Hit) {
	h.serial++
	h.chain = append(h.chain, hit)
	h.serials = append(h.serials, h.serial)
}

// Serial returns the serial of the hit at chain place at, or 0 off the chain.
func (h *Hits) Serial(at int) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	if at < 0 || at >= len(h.chain) {
		return 0
	}
	return h.serials[at]
}

// Following returns the hit after chain place from, and its serial: the stop that a continue
// from there with the same breakpoints reaches.
func (h *Hits) Following(from int) (Stop, int, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if from < 0 || from+1 >= len(h.chain) {
		return Stop{}, 0, false
	}
	return h.chain[from+1].Stop, h.serials[from+1], true
}

// NewHits returns an empty record.
func NewHits() *Hits { return &Hits{at: -1} }

// Start begins the record at the start of the run, where the current stop is.
func (h *Hits) Start() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.chain, h.serials, h.at = nil, nil, 0
	h.add(Hit{Nth: 0})
}

// Clear forgets everything: the breakpoints or the schedule changed.
func (h *Hits) Clear() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.chain, h.serials, h.at = nil, nil, -1
}

// Leave is called when a motion starts. It returns the place on the chain the motion leaves
// from, for Continued and Previous, and takes the current stop off the chain: any motion but
// those two ends off it.
func (h *Hits) Leave() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	at := h.at
	h.at = -1
	return at
}

// Stay undoes Leave for a motion that did not move: the current stop is at chain place at
// again.
func (h *Hits) Stay(at int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if at < len(h.chain) {
		h.at = at
	}
}

// Continued records a continue that left chain place from (from Leave), standing at stop
// cur, and stopped at to; hit says it stopped at a breakpoint.
func (h *Hits) Continued(from int, cur, to Stop, hit bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !hit {
		return
	}
	if from < 0 || from >= len(h.chain) {
		// A new chain from an arbitrary place: it proves no hit lies between cur and to.
		h.chain, h.serials, from = nil, nil, 0
		h.add(Hit{Stop: cur, Nth: -1})
	}
	if from+1 < len(h.chain) {
		if h.chain[from+1].Stop.Same(to) {
			h.at = from + 1
			return
		}
		// Not what this chain recorded: the execution is not the one it was made on.
		h.chain, h.serials = h.chain[:from+1], h.serials[:from+1]
	}
	prev := h.chain[from]
	nth := -1
	switch {
	case to.Checkpoint < 0:
	case to.Checkpoint > prev.Stop.Checkpoint:
		nth = 1
	case prev.Nth >= 0:
		nth = prev.Nth + 1
	}
	h.add(Hit{Stop: to, Nth: nth})
	h.at = len(h.chain) - 1
}

// Previous returns the hit before chain place from, if the chain proves it is the latest
// before it and knows how to reach it. A Nth of 0 means the start of the run.
func (h *Hits) Previous(from int) (Hit, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if from < 1 || from >= len(h.chain) || h.chain[from-1].Nth < 0 {
		return Hit{}, false
	}
	return h.chain[from-1], true
}

// Back records that a reverse continue from chain place from went to its previous hit.
func (h *Hits) Back(from int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if from >= 1 && from < len(h.chain) {
		h.at = from - 1
	}
}
