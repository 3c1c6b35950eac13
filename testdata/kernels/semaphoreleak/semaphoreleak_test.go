// Pattern: channel used as a semaphore that is never released on an error path.
// Modeled on: Docker/Moby distribution code that bounds concurrent layer downloads with a
// buffered channel; an early "return err" leaked the slot and later downloads hung.
// Fix: release the slot with defer right after acquiring it.
package semaphoreleak

import (
	"fmt"
	"sync"
	"testing"
)

type downloadManager struct {
	sem  chan struct{}
	mu   sync.Mutex
	have map[string]bool
}

func (m *downloadManager) download(layer, parent string) error {
	m.sem <- struct{}{}
	m.mu.Lock()
	if parent != "" && !m.have[parent] {
		m.mu.Unlock()
		return fmt.Errorf("layer %s: parent %s not present", layer, parent) // BUG: slot leaked
	}
	m.have[layer] = true
	m.mu.Unlock()
	<-m.sem
	return nil
}

func (m *downloadManager) downloadFixed(layer, parent string) error {
	m.sem <- struct{}{}
	defer func() { <-m.sem }()
	m.mu.Lock()
	defer m.mu.Unlock()
	if parent != "" && !m.have[parent] {
		return fmt.Errorf("layer %s: parent %s not present", layer, parent)
	}
	m.have[layer] = true
	return nil
}

func run(dl func(m *downloadManager, layer, parent string) error) {
	m := &downloadManager{sem: make(chan struct{}, 1), have: map[string]bool{}}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); dl(m, "sha256:app", "sha256:base") }() // may fail: retried later
	dl(m, "sha256:base", "")
	wg.Wait()
}

func TestBug(t *testing.T)   { run((*downloadManager).download) }
func TestFixed(t *testing.T) { run((*downloadManager).downloadFixed) }
