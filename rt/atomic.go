package rt

import (
	"unsafe"
)

// Every sync/atomic operation is a visible operation on the object at its address. Loads
// commute with each other; everything else depends on every other access to the address.
// atomic_mirrors.go, generated from sync/atomic, makes each of its functions and methods call
// atomicOp before doing the real operation.

//go:norace
func atomicOp(addr unsafe.Pointer, kind OpKind) {
	r, g := current()
	if r == nil {
		return
	}
	id, ok := r.addrs.get(addr)
	if !ok {
		id = r.newObj(ObjAtomic, g)
		r.addrs.put(addr, id)
	}
	g.op = op{kind: kind, obj: id}
	r.yield(g)
	prev := g.lastLoad
	e := r.record(g, kind, id)
	// The real operation, which follows, is the race detector's atomic access and edge.
	if kind != OpAtomicStore {
		r.acquireModel(e, id)
	}
	if kind != OpAtomicLoad {
		r.releaseModel(e, id)
		return
	}
	// A load of the object g loaded at its previous step, with nothing of g's in between,
	// cannot see anything g changed: g is spinning on it.
	g.lastLoad = id
	if prev == id {
		r.poll(g)
	}
}

const (
	load  = OpAtomicLoad
	store = OpAtomicStore
	rmw   = OpAtomicRMW
)
