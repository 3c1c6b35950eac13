package buffer_test

import (
	"testing"

	"example.com/buffer"
)

func TestExternal(t *testing.T) {
	var b buffer.Buffer
	buffer.Reset(&b)
}
