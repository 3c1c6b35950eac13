// Package top sums numbers through mid.
package top

import (
	"example.com/layers/base"
	"example.com/layers/mid"
)

// Sum returns the sum of ds.
func Sum(ds ...int) int {
	var b base.Box
	mid.AddAll(&b, ds...)
	return b.Get()
}
