package p

import "runtime"

func keep() string {
	runtime.Gosched()
	return runtime.GOOS
}
