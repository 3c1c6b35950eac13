//go:build !unix

package slow

const nonblock = 0
