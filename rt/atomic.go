package rt

import (
	"sync/atomic"
	"unsafe"
)

// Every sync/atomic operation is a visible operation on the object at its address. Loads
// commute with each other; everything else depends on every other access to the address.

func atomicOp(addr unsafe.Pointer, kind OpKind) {
	r, g := current()
	if r == nil {
		return
	}
	id, ok := r.addrs[uintptr(addr)]
	if !ok {
		id = r.newObj(ObjAtomic, g)
		r.addrs[uintptr(addr)] = id
	}
	g.op = op{kind: kind, obj: id}
	r.yield(g)
	prev := g.lastLoad
	e := r.record(g, kind, id)
	if kind != OpAtomicStore {
		r.acquire(e, id)
	}
	if kind != OpAtomicLoad {
		r.release(e, id)
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

func AddInt32(addr *int32, delta int32) (new int32) {
	atomicOp(unsafe.Pointer(addr), rmw)
	return atomic.AddInt32(addr, delta)
}

func AndInt32(addr *int32, mask int32) (old int32) {
	atomicOp(unsafe.Pointer(addr), rmw)
	return atomic.AndInt32(addr, mask)
}

func OrInt32(addr *int32, mask int32) (old int32) {
	atomicOp(unsafe.Pointer(addr), rmw)
	return atomic.OrInt32(addr, mask)
}

func CompareAndSwapInt32(addr *int32, old, new int32) (swapped bool) {
	atomicOp(unsafe.Pointer(addr), rmw)
	return atomic.CompareAndSwapInt32(addr, old, new)
}

func LoadInt32(addr *int32) (val int32) {
	atomicOp(unsafe.Pointer(addr), load)
	return atomic.LoadInt32(addr)
}

func StoreInt32(addr *int32, val int32) {
	atomicOp(unsafe.Pointer(addr), store)
	atomic.StoreInt32(addr, val)
}

func SwapInt32(addr *int32, new int32) (old int32) {
	atomicOp(unsafe.Pointer(addr), rmw)
	return atomic.SwapInt32(addr, new)
}

// Int32 is atomic.Int32 under heddle's control.
type Int32 struct{ v atomic.Int32 }

func (x *Int32) Load() int32                { atomicOp(unsafe.Pointer(x), load); return x.v.Load() }
func (x *Int32) Store(val int32)            { atomicOp(unsafe.Pointer(x), store); x.v.Store(val) }
func (x *Int32) Swap(new int32) (old int32) { atomicOp(unsafe.Pointer(x), rmw); return x.v.Swap(new) }
func (x *Int32) CompareAndSwap(old, new int32) (swapped bool) {
	atomicOp(unsafe.Pointer(x), rmw)
	return x.v.CompareAndSwap(old, new)
}
func (x *Int32) Add(delta int32) (new int32) { atomicOp(unsafe.Pointer(x), rmw); return x.v.Add(delta) }
func (x *Int32) And(mask int32) (old int32)  { atomicOp(unsafe.Pointer(x), rmw); return x.v.And(mask) }
func (x *Int32) Or(mask int32) (old int32)   { atomicOp(unsafe.Pointer(x), rmw); return x.v.Or(mask) }

func AddInt64(addr *int64, delta int64) (new int64) {
	atomicOp(unsafe.Pointer(addr), rmw)
	return atomic.AddInt64(addr, delta)
}

func AndInt64(addr *int64, mask int64) (old int64) {
	atomicOp(unsafe.Pointer(addr), rmw)
	return atomic.AndInt64(addr, mask)
}

func OrInt64(addr *int64, mask int64) (old int64) {
	atomicOp(unsafe.Pointer(addr), rmw)
	return atomic.OrInt64(addr, mask)
}

func CompareAndSwapInt64(addr *int64, old, new int64) (swapped bool) {
	atomicOp(unsafe.Pointer(addr), rmw)
	return atomic.CompareAndSwapInt64(addr, old, new)
}

func LoadInt64(addr *int64) (val int64) {
	atomicOp(unsafe.Pointer(addr), load)
	return atomic.LoadInt64(addr)
}

func StoreInt64(addr *int64, val int64) {
	atomicOp(unsafe.Pointer(addr), store)
	atomic.StoreInt64(addr, val)
}

func SwapInt64(addr *int64, new int64) (old int64) {
	atomicOp(unsafe.Pointer(addr), rmw)
	return atomic.SwapInt64(addr, new)
}

// Int64 is atomic.Int64 under heddle's control.
type Int64 struct{ v atomic.Int64 }

func (x *Int64) Load() int64                { atomicOp(unsafe.Pointer(x), load); return x.v.Load() }
func (x *Int64) Store(val int64)            { atomicOp(unsafe.Pointer(x), store); x.v.Store(val) }
func (x *Int64) Swap(new int64) (old int64) { atomicOp(unsafe.Pointer(x), rmw); return x.v.Swap(new) }
func (x *Int64) CompareAndSwap(old, new int64) (swapped bool) {
	atomicOp(unsafe.Pointer(x), rmw)
	return x.v.CompareAndSwap(old, new)
}
func (x *Int64) Add(delta int64) (new int64) { atomicOp(unsafe.Pointer(x), rmw); return x.v.Add(delta) }
func (x *Int64) And(mask int64) (old int64)  { atomicOp(unsafe.Pointer(x), rmw); return x.v.And(mask) }
func (x *Int64) Or(mask int64) (old int64)   { atomicOp(unsafe.Pointer(x), rmw); return x.v.Or(mask) }

func AddUint32(addr *uint32, delta uint32) (new uint32) {
	atomicOp(unsafe.Pointer(addr), rmw)
	return atomic.AddUint32(addr, delta)
}

func AndUint32(addr *uint32, mask uint32) (old uint32) {
	atomicOp(unsafe.Pointer(addr), rmw)
	return atomic.AndUint32(addr, mask)
}

func OrUint32(addr *uint32, mask uint32) (old uint32) {
	atomicOp(unsafe.Pointer(addr), rmw)
	return atomic.OrUint32(addr, mask)
}

func CompareAndSwapUint32(addr *uint32, old, new uint32) (swapped bool) {
	atomicOp(unsafe.Pointer(addr), rmw)
	return atomic.CompareAndSwapUint32(addr, old, new)
}

func LoadUint32(addr *uint32) (val uint32) {
	atomicOp(unsafe.Pointer(addr), load)
	return atomic.LoadUint32(addr)
}

func StoreUint32(addr *uint32, val uint32) {
	atomicOp(unsafe.Pointer(addr), store)
	atomic.StoreUint32(addr, val)
}

func SwapUint32(addr *uint32, new uint32) (old uint32) {
	atomicOp(unsafe.Pointer(addr), rmw)
	return atomic.SwapUint32(addr, new)
}

// Uint32 is atomic.Uint32 under heddle's control.
type Uint32 struct{ v atomic.Uint32 }

func (x *Uint32) Load() uint32     { atomicOp(unsafe.Pointer(x), load); return x.v.Load() }
func (x *Uint32) Store(val uint32) { atomicOp(unsafe.Pointer(x), store); x.v.Store(val) }
func (x *Uint32) Swap(new uint32) (old uint32) {
	atomicOp(unsafe.Pointer(x), rmw)
	return x.v.Swap(new)
}
func (x *Uint32) CompareAndSwap(old, new uint32) (swapped bool) {
	atomicOp(unsafe.Pointer(x), rmw)
	return x.v.CompareAndSwap(old, new)
}
func (x *Uint32) Add(delta uint32) (new uint32) {
	atomicOp(unsafe.Pointer(x), rmw)
	return x.v.Add(delta)
}
func (x *Uint32) And(mask uint32) (old uint32) {
	atomicOp(unsafe.Pointer(x), rmw)
	return x.v.And(mask)
}
func (x *Uint32) Or(mask uint32) (old uint32) { atomicOp(unsafe.Pointer(x), rmw); return x.v.Or(mask) }

func AddUint64(addr *uint64, delta uint64) (new uint64) {
	atomicOp(unsafe.Pointer(addr), rmw)
	return atomic.AddUint64(addr, delta)
}

func AndUint64(addr *uint64, mask uint64) (old uint64) {
	atomicOp(unsafe.Pointer(addr), rmw)
	return atomic.AndUint64(addr, mask)
}

func OrUint64(addr *uint64, mask uint64) (old uint64) {
	atomicOp(unsafe.Pointer(addr), rmw)
	return atomic.OrUint64(addr, mask)
}

func CompareAndSwapUint64(addr *uint64, old, new uint64) (swapped bool) {
	atomicOp(unsafe.Pointer(addr), rmw)
	return atomic.CompareAndSwapUint64(addr, old, new)
}

func LoadUint64(addr *uint64) (val uint64) {
	atomicOp(unsafe.Pointer(addr), load)
	return atomic.LoadUint64(addr)
}

func StoreUint64(addr *uint64, val uint64) {
	atomicOp(unsafe.Pointer(addr), store)
	atomic.StoreUint64(addr, val)
}

func SwapUint64(addr *uint64, new uint64) (old uint64) {
	atomicOp(unsafe.Pointer(addr), rmw)
	return atomic.SwapUint64(addr, new)
}

// Uint64 is atomic.Uint64 under heddle's control.
type Uint64 struct{ v atomic.Uint64 }

func (x *Uint64) Load() uint64     { atomicOp(unsafe.Pointer(x), load); return x.v.Load() }
func (x *Uint64) Store(val uint64) { atomicOp(unsafe.Pointer(x), store); x.v.Store(val) }
func (x *Uint64) Swap(new uint64) (old uint64) {
	atomicOp(unsafe.Pointer(x), rmw)
	return x.v.Swap(new)
}
func (x *Uint64) CompareAndSwap(old, new uint64) (swapped bool) {
	atomicOp(unsafe.Pointer(x), rmw)
	return x.v.CompareAndSwap(old, new)
}
func (x *Uint64) Add(delta uint64) (new uint64) {
	atomicOp(unsafe.Pointer(x), rmw)
	return x.v.Add(delta)
}
func (x *Uint64) And(mask uint64) (old uint64) {
	atomicOp(unsafe.Pointer(x), rmw)
	return x.v.And(mask)
}
func (x *Uint64) Or(mask uint64) (old uint64) { atomicOp(unsafe.Pointer(x), rmw); return x.v.Or(mask) }

func AddUintptr(addr *uintptr, delta uintptr) (new uintptr) {
	atomicOp(unsafe.Pointer(addr), rmw)
	return atomic.AddUintptr(addr, delta)
}

func AndUintptr(addr *uintptr, mask uintptr) (old uintptr) {
	atomicOp(unsafe.Pointer(addr), rmw)
	return atomic.AndUintptr(addr, mask)
}

func OrUintptr(addr *uintptr, mask uintptr) (old uintptr) {
	atomicOp(unsafe.Pointer(addr), rmw)
	return atomic.OrUintptr(addr, mask)
}

func CompareAndSwapUintptr(addr *uintptr, old, new uintptr) (swapped bool) {
	atomicOp(unsafe.Pointer(addr), rmw)
	return atomic.CompareAndSwapUintptr(addr, old, new)
}

func LoadUintptr(addr *uintptr) (val uintptr) {
	atomicOp(unsafe.Pointer(addr), load)
	return atomic.LoadUintptr(addr)
}

func StoreUintptr(addr *uintptr, val uintptr) {
	atomicOp(unsafe.Pointer(addr), store)
	atomic.StoreUintptr(addr, val)
}

func SwapUintptr(addr *uintptr, new uintptr) (old uintptr) {
	atomicOp(unsafe.Pointer(addr), rmw)
	return atomic.SwapUintptr(addr, new)
}

// Uintptr is atomic.Uintptr under heddle's control.
type Uintptr struct{ v atomic.Uintptr }

func (x *Uintptr) Load() uintptr     { atomicOp(unsafe.Pointer(x), load); return x.v.Load() }
func (x *Uintptr) Store(val uintptr) { atomicOp(unsafe.Pointer(x), store); x.v.Store(val) }
func (x *Uintptr) Swap(new uintptr) (old uintptr) {
	atomicOp(unsafe.Pointer(x), rmw)
	return x.v.Swap(new)
}
func (x *Uintptr) CompareAndSwap(old, new uintptr) (swapped bool) {
	atomicOp(unsafe.Pointer(x), rmw)
	return x.v.CompareAndSwap(old, new)
}
func (x *Uintptr) Add(delta uintptr) (new uintptr) {
	atomicOp(unsafe.Pointer(x), rmw)
	return x.v.Add(delta)
}
func (x *Uintptr) And(mask uintptr) (old uintptr) {
	atomicOp(unsafe.Pointer(x), rmw)
	return x.v.And(mask)
}
func (x *Uintptr) Or(mask uintptr) (old uintptr) {
	atomicOp(unsafe.Pointer(x), rmw)
	return x.v.Or(mask)
}

func CompareAndSwapPointer(addr *unsafe.Pointer, old, new unsafe.Pointer) (swapped bool) {
	atomicOp(unsafe.Pointer(addr), rmw)
	return atomic.CompareAndSwapPointer(addr, old, new)
}

func LoadPointer(addr *unsafe.Pointer) (val unsafe.Pointer) {
	atomicOp(unsafe.Pointer(addr), load)
	return atomic.LoadPointer(addr)
}

func StorePointer(addr *unsafe.Pointer, val unsafe.Pointer) {
	atomicOp(unsafe.Pointer(addr), store)
	atomic.StorePointer(addr, val)
}

func SwapPointer(addr *unsafe.Pointer, new unsafe.Pointer) (old unsafe.Pointer) {
	atomicOp(unsafe.Pointer(addr), rmw)
	return atomic.SwapPointer(addr, new)
}

// Bool is atomic.Bool under heddle's control.
type Bool struct{ v atomic.Bool }

func (x *Bool) Load() bool               { atomicOp(unsafe.Pointer(x), load); return x.v.Load() }
func (x *Bool) Store(val bool)           { atomicOp(unsafe.Pointer(x), store); x.v.Store(val) }
func (x *Bool) Swap(new bool) (old bool) { atomicOp(unsafe.Pointer(x), rmw); return x.v.Swap(new) }
func (x *Bool) CompareAndSwap(old, new bool) (swapped bool) {
	atomicOp(unsafe.Pointer(x), rmw)
	return x.v.CompareAndSwap(old, new)
}

// Pointer is atomic.Pointer under heddle's control.
type Pointer[T any] struct{ v atomic.Pointer[T] }

func (x *Pointer[T]) Load() *T             { atomicOp(unsafe.Pointer(x), load); return x.v.Load() }
func (x *Pointer[T]) Store(val *T)         { atomicOp(unsafe.Pointer(x), store); x.v.Store(val) }
func (x *Pointer[T]) Swap(new *T) (old *T) { atomicOp(unsafe.Pointer(x), rmw); return x.v.Swap(new) }
func (x *Pointer[T]) CompareAndSwap(old, new *T) (swapped bool) {
	atomicOp(unsafe.Pointer(x), rmw)
	return x.v.CompareAndSwap(old, new)
}

// Value is atomic.Value under heddle's control.
type Value struct{ v atomic.Value }

func (x *Value) Load() (val any)        { atomicOp(unsafe.Pointer(x), load); return x.v.Load() }
func (x *Value) Store(val any)          { atomicOp(unsafe.Pointer(x), store); x.v.Store(val) }
func (x *Value) Swap(new any) (old any) { atomicOp(unsafe.Pointer(x), rmw); return x.v.Swap(new) }
func (x *Value) CompareAndSwap(old, new any) (swapped bool) {
	atomicOp(unsafe.Pointer(x), rmw)
	return x.v.CompareAndSwap(old, new)
}
