// Pattern: WaitGroup.Add after Wait started. The Add runs inside the new goroutine (hidden in a
// helper), so stop()'s Wait can return before a scrape loop registered; stop then shuts the
// appender down and the late scrape loop blocks forever sending its sample.
// Modeled on: Prometheus scrape pool / Docker restore loops (the "Add inside the goroutine"
// class from Tu et al. and GoKer).
// Fix: syncFixed calls wg.Add(1) before starting the goroutine.
package wgaddafterwait

import (
	"sync"
	"testing"
)

type scrapePool struct {
	wg       sync.WaitGroup
	appendc  chan string
	quit     chan struct{}
	done     chan struct{}
	appended []string
}

func newScrapePool() *scrapePool {
	sp := &scrapePool{appendc: make(chan string), quit: make(chan struct{}), done: make(chan struct{})}
	go func() { // the appender
		defer close(sp.done)
		for {
			select {
			case s := <-sp.appendc:
				sp.appended = append(sp.appended, s)
			case <-sp.quit:
				return
			}
		}
	}()
	return sp
}

func (sp *scrapePool) startLoop() { sp.wg.Add(1) }

func (sp *scrapePool) scrape(target string) {
	defer sp.wg.Done()
	sp.appendc <- target + " up=1"
}

func (sp *scrapePool) sync(targets []string) {
	for _, tg := range targets {
		go func() {
			sp.startLoop() // BUG: Add runs concurrently with stop()'s Wait
			sp.scrape(tg)
		}()
	}
}

func (sp *scrapePool) syncFixed(targets []string) {
	for _, tg := range targets {
		sp.startLoop()
		go sp.scrape(tg)
	}
}

func (sp *scrapePool) stop() {
	sp.wg.Wait()
	close(sp.quit)
	<-sp.done
}

func TestBug(t *testing.T) {
	sp := newScrapePool()
	sp.sync([]string{"node-1:9100"})
	sp.stop()
}

func TestFixed(t *testing.T) {
	sp := newScrapePool()
	sp.syncFixed([]string{"node-1:9100"})
	sp.stop()
	if len(sp.appended) != 1 {
		t.Errorf("appended %d samples, want 1", len(sp.appended))
	}
}
