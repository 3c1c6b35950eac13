// Package rt is a stand-in for heddle's controlled runtime that keeps the
// semantics of plain Go: real goroutines, real channels, reflect.Select. The
// instrumenter's tests build instrumented programs against it to check that
// rewriting preserves behavior, independently of the scheduler.
package rt

import (
	"context"
	mrand "math/rand"
	"math/rand/v2"
	"os"
	"reflect"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func Go(f func())       { go f() }
func Gosched()          { runtime.Gosched() }
func Goexit()           { runtime.Goexit() }
func NumGoroutine() int { return runtime.NumGoroutine() }
func Exit(code int)     { os.Exit(code) }

func Stack(buf []byte, all bool) int { return runtime.Stack(buf, all) }
func DebugStack() []byte             { return debug.Stack() }
func PrintStack()                    { debug.PrintStack() }

func AllocsPerRun(runs int, f func()) float64 { return testing.AllocsPerRun(runs, f) }
func ReadMemStats(m *runtime.MemStats)        { runtime.ReadMemStats(m) }

func MakeChan[T any](size int) chan T    { return make(chan T, size) }
func Send[T any](ch chan<- T, v T)       { ch <- v }
func Recv[T any](ch <-chan T) T          { return <-ch }
func Recv2[T any](ch <-chan T) (T, bool) { v, ok := <-ch; return v, ok }
func Close[T any](ch chan<- T)           { close(ch) }
func Len(ch any) int                     { return reflect.ValueOf(ch).Len() }
func Cap(ch any) int                     { return reflect.ValueOf(ch).Cap() }

// The access hooks only pass their operand through.
func UseAccesses() bool                                           { return true }
func Load[T any](p *T, pos string) *T                             { return p }
func Store[T any](p *T, v T, pos string) T                        { return v }
func StoreAs[T, V any](p *T, v V, pos string) V                   { return v }
func Update[T any](p *T, v T, pos string) T                       { return v }
func Shift[T, N any](p *T, n N, pos string) N                     { return n }
func MapRead[M ~map[K]V, K comparable, V any](m M, pos string) M  { return m }
func MapWrite[M ~map[K]V, K comparable, V any](m M, pos string) M { return m }

type Case = reflect.SelectCase

func SendCase[T any](ch chan<- T, v T) Case {
	return Case{Dir: reflect.SelectSend, Chan: reflect.ValueOf(ch), Send: reflect.ValueOf(&v).Elem()}
}

func RecvCase[T any](ch <-chan T) Case {
	return Case{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(ch)}
}

func Select(hasDefault bool, cases ...Case) (int, any, bool) {
	if hasDefault {
		cases = append(cases, Case{Dir: reflect.SelectDefault})
	}
	i, v, ok := reflect.Select(cases)
	if hasDefault && i == len(cases)-1 {
		return -1, nil, false
	}
	if !v.IsValid() {
		return i, nil, ok
	}
	return i, v.Interface(), ok
}

func Recvd[T any](ch <-chan T, v any) T {
	if v == nil {
		var zero T
		return zero
	}
	return v.(T)
}

type (
	Mutex     = sync.Mutex
	RWMutex   = sync.RWMutex
	WaitGroup = sync.WaitGroup
	Cond      = sync.Cond
	Once      = sync.Once
	Map       = sync.Map
	Pool      = sync.Pool
)

func NewCond(l sync.Locker) *Cond                              { return sync.NewCond(l) }
func OnceFunc(f func()) func()                                 { return sync.OnceFunc(f) }
func OnceValue[T any](f func() T) func() T                     { return sync.OnceValue(f) }
func OnceValues[T1, T2 any](f func() (T1, T2)) func() (T1, T2) { return sync.OnceValues(f) }

type (
	Bool           = atomic.Bool
	Int32          = atomic.Int32
	Int64          = atomic.Int64
	Uint32         = atomic.Uint32
	Uint64         = atomic.Uint64
	Uintptr        = atomic.Uintptr
	Pointer[T any] = atomic.Pointer[T]
	Value          = atomic.Value
)

var (
	AddInt32              = atomic.AddInt32
	AddInt64              = atomic.AddInt64
	AddUint32             = atomic.AddUint32
	AddUint64             = atomic.AddUint64
	AddUintptr            = atomic.AddUintptr
	AndInt32              = atomic.AndInt32
	AndInt64              = atomic.AndInt64
	AndUint32             = atomic.AndUint32
	AndUint64             = atomic.AndUint64
	AndUintptr            = atomic.AndUintptr
	OrInt32               = atomic.OrInt32
	OrInt64               = atomic.OrInt64
	OrUint32              = atomic.OrUint32
	OrUint64              = atomic.OrUint64
	OrUintptr             = atomic.OrUintptr
	CompareAndSwapInt32   = atomic.CompareAndSwapInt32
	CompareAndSwapInt64   = atomic.CompareAndSwapInt64
	CompareAndSwapUint32  = atomic.CompareAndSwapUint32
	CompareAndSwapUint64  = atomic.CompareAndSwapUint64
	CompareAndSwapUintptr = atomic.CompareAndSwapUintptr
	CompareAndSwapPointer = atomic.CompareAndSwapPointer
	LoadInt32             = atomic.LoadInt32
	LoadInt64             = atomic.LoadInt64
	LoadUint32            = atomic.LoadUint32
	LoadUint64            = atomic.LoadUint64
	LoadUintptr           = atomic.LoadUintptr
	LoadPointer           = atomic.LoadPointer
	StoreInt32            = atomic.StoreInt32
	StoreInt64            = atomic.StoreInt64
	StoreUint32           = atomic.StoreUint32
	StoreUint64           = atomic.StoreUint64
	StoreUintptr          = atomic.StoreUintptr
	StorePointer          = atomic.StorePointer
	SwapInt32             = atomic.SwapInt32
	SwapInt64             = atomic.SwapInt64
	SwapUint32            = atomic.SwapUint32
	SwapUint64            = atomic.SwapUint64
	SwapUintptr           = atomic.SwapUintptr
	SwapPointer           = atomic.SwapPointer
)

type (
	Timer  = time.Timer
	Ticker = time.Ticker
)

var (
	Now       = time.Now
	Since     = time.Since
	Until     = time.Until
	Sleep     = time.Sleep
	After     = time.After
	Tick      = time.Tick
	NewTimer  = time.NewTimer
	NewTicker = time.NewTicker
	AfterFunc = time.AfterFunc
)

var (
	WithCancel        = context.WithCancel
	WithCancelCause   = context.WithCancelCause
	WithTimeout       = context.WithTimeout
	WithTimeoutCause  = context.WithTimeoutCause
	WithDeadline      = context.WithDeadline
	WithDeadlineCause = context.WithDeadlineCause
)

// ContextAfterFunc is context.AfterFunc; rt's own name clashes with time's.
var ContextAfterFunc = context.AfterFunc

var Cause = context.Cause

var (
	WithValue     = context.WithValue
	WithoutCancel = context.WithoutCancel
)

// RandV1 and RandV2 are the global generators of math/rand and math/rand/v2.
func RandV1() *mrand.Rand { return mrand.New(globalV1{}) }
func RandV2() *rand.Rand  { return rand.New(globalV2{}) }

func RandN[Int ~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr](n Int) Int {
	return rand.N(n)
}

type globalV1 struct{}

func (globalV1) Int63() int64    { return mrand.Int63() }
func (globalV1) Uint64() uint64  { return mrand.Uint64() }
func (globalV1) Seed(seed int64) { mrand.Seed(seed) }

type globalV2 struct{}

func (globalV2) Uint64() uint64 { return rand.Uint64() }

// The instrumenter's list of the standard library's packages is not needed here.
func setStdPackages(string) {}
