// Pattern: sync.Once whose function calls back into the same Once. The lazy config loader logs;
// when verbose logging has been switched on concurrently, the logger reads the (lazily loaded)
// config, re-entering once.Do, which blocks forever on the Once's own mutex.
// Modeled on: Hugo lazy site/page initialisation deadlocks (init funcs that reach, through
// logging or templates, the value they are initialising).
// Fix: loadFixed passes the config it is building to the logger instead of calling config().
package oncerecursive

import (
	"sync"
	"sync/atomic"
	"testing"
)

type site struct {
	once    sync.Once
	load    func()
	cfg     map[string]string
	verbose atomic.Bool
	logs    []string
}

func (s *site) config() map[string]string {
	s.once.Do(s.load)
	return s.cfg
}

func (s *site) loadConfig() {
	s.cfg = map[string]string{"baseURL": "https://example.org/"}
	if s.verbose.Load() {
		s.logs = append(s.logs, s.config()["baseURL"]+": config loaded") // BUG: re-enters once.Do
	}
}

func (s *site) loadFixed() {
	cfg := map[string]string{"baseURL": "https://example.org/"}
	s.cfg = cfg
	if s.verbose.Load() {
		s.logs = append(s.logs, cfg["baseURL"]+": config loaded")
	}
}

func run(fixed bool) {
	s := &site{}
	s.load = s.loadConfig
	if fixed {
		s.load = s.loadFixed
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); s.verbose.Store(true) }() // hugo server --verbose toggled
	s.config()
	wg.Wait()
}

func TestBug(t *testing.T)   { run(false) }
func TestFixed(t *testing.T) { run(true) }
