package rt

import "unsafe"

// Under a debugger (Config.Mirror), a run writes the state of each lock, wait group and once
// into the object's own words, where Go's sync keeps it: a debugger that reads the program's
// memory, as Delve does, shows a held sync.Mutex with its state's locked bit set. The stand-ins
// name those words at the first level of their types, which is as deep as Delve renders a
// value inside another. Beyond what Go stores, the semaphore word of a held lock holds its
// object's number in the run plus one, by which the debugger names the holder (ObjOfLock).
// The run restores the words to zero values at its end, so that outside any run the object is
// an unused standard one again. Explorations do not mirror: the words are the standard type's
// only, which a goroutine heddle did not start may be using.

// mirror writes the state s of the stand-in at p into its words.
//
//go:norace
func (r *run) mirror(p unsafe.Pointer, s *syncObj) {
	if !r.cfg.Mirror {
		return
	}
	s.mirrored = true
	held := func(locked bool) (int32, uint32) {
		if locked {
			return 1, uint32(s.id) + 1
		}
		return 0, 0
	}
	switch s.kind {
	case ObjMutex:
		m := (*Mutex)(p)
		m.state, m.sema = held(s.locked)
	case ObjRWMutex:
		rw := (*RWMutex)(p)
		rw.state, rw.sema = held(s.locked)
		rw.readerCount = int32(s.readers)
	case ObjWaitGroup:
		(*WaitGroup)(p).state = uint64(s.count) << 32
	case ObjOnce:
		o := (*Once)(p)
		o.done, o.state = 0, 0
		if s.done {
			o.done = 1
		}
		if s.running {
			o.state = 1
		}
	}
}

// unmirror returns the words of every object the run mirrored to their zero values.
//
//go:norace
func (r *run) unmirror() {
	if !r.cfg.Mirror {
		return
	}
	for i, p := range r.syncs.keys {
		so := r.syncs.vals[i]
		if p == nil || !so.mirrored {
			continue
		}
		switch so.kind {
		case ObjMutex:
			*(*Mutex)(p) = Mutex{}
		case ObjRWMutex:
			*(*RWMutex)(p) = RWMutex{}
		case ObjWaitGroup:
			*(*WaitGroup)(p) = WaitGroup{}
		case ObjOnce:
			*(*Once)(p) = Once{}
		}
	}
}

// ObjOfLock returns the number in the run of the held lock whose semaphore word a mirroring
// run set to sema, or NoObj.
func ObjOfLock(sema uint32) ObjID {
	if sema == 0 {
		return NoObj
	}
	return ObjID(sema - 1)
}
