// Package readerswriters is the readers/writers example of Hatcliff, Robby and Dwyer,
// "Verifying atomicity specifications for concurrent object-oriented software using
// model-checking" (Fig. 7, Table 1), translated to Go: Doug Lea's RWVSN (Concurrent
// Programming in Java, 2nd ed., §3.3.3), where each waiting writer waits on a monitor of its
// own, queued in a synchronized Vector, and readers wait on the object's monitor. A Java
// monitor is a mutex with a condition variable; Vector is a slice under a mutex.
//
// The methods annotated //heddle:atomic are those Bogor verified: the Vector's, and the RWVSN
// methods that do not wait (afterRead, afterWrite, allowReader, allowWriter; notifyReaders and
// notifyWriter are only called from afterRead and afterWrite, holding the monitor, and an
// annotated function's execution includes those of the functions it calls). beforeRead and
// beforeWrite wait, and are not annotated.
package readerswriters

import (
	"sync"
	"testing"
)

// A monitor is a Java object used for its lock and its wait set.
type monitor struct {
	mu       sync.Mutex
	cond     *sync.Cond
	notified bool
}

func newMonitor() *monitor {
	m := &monitor{}
	m.cond = sync.NewCond(&m.mu)
	return m
}

// vector is java.util.Vector: every method synchronized.
type vector struct {
	mu    sync.Mutex
	elems []*monitor
}

//heddle:atomic
func (v *vector) size() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return len(v.elems)
}

//heddle:atomic
func (v *vector) firstElement() *monitor {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.elems[0]
}

//heddle:atomic
func (v *vector) removeElementAt(i int) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.elems = append(v.elems[:i], v.elems[i+1:]...)
}

//heddle:atomic
func (v *vector) addElement(m *monitor) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.elems = append(v.elems, m)
}

// rwvsn is RWVSN: the object's monitor guards the counts.
type rwvsn struct {
	mu                    sync.Mutex
	cond                  *sync.Cond
	activeReaders         int
	activeWriters         int
	waitingReaders        int
	waitingWriterMonitors vector

	data int // what readers read and writers write
}

func newRWVSN() *rwvsn {
	rw := &rwvsn{}
	rw.cond = sync.NewCond(&rw.mu)
	return rw
}

// allowReader is called with rw.mu held.
//
//heddle:atomic
func (rw *rwvsn) allowReader() bool {
	return rw.waitingWriterMonitors.size() == 0 && rw.activeWriters == 0
}

// allowWriter is called with rw.mu held.
//
//heddle:atomic
func (rw *rwvsn) allowWriter() bool {
	return rw.activeReaders == 0 && rw.activeWriters == 0
}

// notifyReadersLocked is RWVSN's synchronized notifyReaders, which afterWrite calls holding
// the monitor (a Java monitor is reentrant, a Go mutex is not). Its execution is part of
// afterWrite's.
func (rw *rwvsn) notifyReadersLocked() {
	if rw.waitingReaders > 0 {
		rw.activeReaders += rw.waitingReaders
		rw.waitingReaders = 0
		rw.cond.Broadcast()
	}
}

// notifyWriterLocked is RWVSN's synchronized notifyWriter (Fig. 7), which wakes the writer
// that has waited longest; afterRead and afterWrite call it holding the monitor.
func (rw *rwvsn) notifyWriterLocked() {
	if rw.waitingWriterMonitors.size() > 0 {
		oldest := rw.waitingWriterMonitors.firstElement()
		rw.waitingWriterMonitors.removeElementAt(0)
		oldest.mu.Lock()
		oldest.notified = true
		oldest.cond.Signal()
		oldest.mu.Unlock()
		rw.activeWriters++
	}
}

func (rw *rwvsn) beforeRead() {
	rw.mu.Lock()
	defer rw.mu.Unlock()
	if rw.allowReader() {
		rw.activeReaders++
		return
	}
	rw.waitingReaders++
	rw.cond.Wait() // notifyReaders counts the reader as active before it wakes it
}

//heddle:atomic
func (rw *rwvsn) afterRead() {
	rw.mu.Lock()
	defer rw.mu.Unlock()
	rw.activeReaders--
	if rw.activeReaders == 0 {
		rw.notifyWriterLocked()
	}
}

func (rw *rwvsn) beforeWrite() {
	m := newMonitor()
	m.mu.Lock()
	defer m.mu.Unlock()
	rw.mu.Lock()
	if rw.allowWriter() {
		rw.activeWriters++
		rw.mu.Unlock()
		return
	}
	rw.waitingWriterMonitors.addElement(m)
	rw.mu.Unlock()
	for !m.notified {
		m.cond.Wait()
	}
}

//heddle:atomic
func (rw *rwvsn) afterWrite() {
	rw.mu.Lock()
	defer rw.mu.Unlock()
	rw.activeWriters--
	if rw.waitingReaders > 0 {
		rw.notifyReadersLocked()
	} else {
		rw.notifyWriterLocked()
	}
}

func (rw *rwvsn) read() int {
	rw.beforeRead()
	defer rw.afterRead()
	rw.mu.Lock()
	defer rw.mu.Unlock()
	return rw.data
}

func (rw *rwvsn) write(x int) {
	rw.beforeWrite()
	defer rw.afterWrite()
	rw.mu.Lock()
	defer rw.mu.Unlock()
	rw.data = x
}

// TestReadersWriters runs two writers and a reader, as Bogor's harness for RWVSN.
func TestReadersWriters(t *testing.T) {
	rw := newRWVSN()
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { defer wg.Done(); rw.write(1) }()
	go func() { defer wg.Done(); rw.write(2) }()
	go func() {
		defer wg.Done()
		if x := rw.read(); x < 0 || x > 2 {
			t.Errorf("read %d", x)
		}
	}()
	wg.Wait()
}
