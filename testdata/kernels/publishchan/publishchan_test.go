// Pattern: publishing a struct before it is initialised, via a channel, guarded only by a flag.
// The daemon hands a new container to the event monitor as soon as it is marked "created",
// and fills in its Config afterwards; the monitor trusts the flag and sees no Config.
// Modeled on: Docker/Moby daemon container creation (objects registered/announced before they
// are fully set up) and Kubernetes informer handlers receiving half-built objects.
// Fix: createFixed initialises the container completely before sending it.
package publishchan

import (
	"sync"
	"testing"
)

type Config struct{ Image string }

type Container struct {
	mu      sync.Mutex
	created bool
	Config  *Config
}

func create(events chan<- *Container) *Container {
	c := &Container{}
	c.mu.Lock()
	c.created = true
	c.mu.Unlock()
	events <- c // BUG: published before Config is set
	c.mu.Lock()
	c.Config = &Config{Image: "nginx:1.27"}
	c.mu.Unlock()
	return c
}

func createFixed(events chan<- *Container) *Container {
	c := &Container{created: true, Config: &Config{Image: "nginx:1.27"}}
	events <- c
	return c
}

func run(t *testing.T, create func(chan<- *Container) *Container) {
	events := make(chan *Container, 1)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // event monitor
		defer wg.Done()
		c := <-events
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.created && c.Config == nil {
			t.Errorf("monitor saw a created container without a Config")
		}
	}()
	create(events)
	wg.Wait()
}

func TestBug(t *testing.T)   { run(t, create) }
func TestFixed(t *testing.T) { run(t, createFixed) }
