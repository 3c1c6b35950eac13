package rt

import "testing"

// TestInstrumentHint: a wait in a dependency's code names the dependency to instrument; a wait
// in Go's own code names none.
func TestInstrumentHint(t *testing.T) {
	for _, tc := range []struct {
		fns, files []string
		want       string
	}{
		{[]string{"sync.(*Mutex).Lock", "github.com/hashicorp/go-hclog.(*intLogger).log", "github.com/hashicorp/go-hclog.(*intLogger).Info"},
			[]string{"/usr/local/go/src/sync/mutex.go:59 +0x2d", "/root/go/pkg/mod/github.com/hashicorp/go-hclog@v1.6.3/intlogger.go:218 +0x7c", "/root/go/pkg/mod/github.com/hashicorp/go-hclog@v1.6.3/intlogger.go:866 +0x45"},
			"; github.com/hashicorp/go-hclog is a dependency heddle does not instrument: -instrument github.com/hashicorp/go-hclog puts its locks and channels under heddle's control"},
		{[]string{"net.(*pipe).read", "bufio.(*Reader).ReadByte"},
			[]string{"/usr/local/go/src/net/pipe.go:159 +0x249", "/usr/local/go/src/bufio/bufio.go:273 +0x49"}, ""},
	} {
		if got := instrumentHint(tc.fns, tc.files); got != tc.want {
			t.Errorf("instrumentHint(%q) = %q, want %q", tc.fns, got, tc.want)
		}
	}
}
