package debugger

import (
	"slices"
	"testing"
)

func TestDebugFlags(t *testing.T) {
	tests := []struct {
		name  string
		flags []string
		want  []string
	}{
		{"none", nil, []string{"-ldflags=-compressdwarf=false", "-gcflags=all=-N -l"}},
		{"others kept", []string{"-tags", "shout", "-race"}, []string{"-tags", "shout", "-race", "-ldflags=-compressdwarf=false", "-gcflags=all=-N -l"}},
		{"joined to -ldflags=", []string{"-ldflags=-X main.v=1"}, []string{"-ldflags=-X main.v=1 -compressdwarf=false", "-gcflags=all=-N -l"}},
		{"joined to a separate value", []string{"--ldflags", "-s", "-v"}, []string{"-ldflags=-s -compressdwarf=false", "-v", "-gcflags=all=-N -l"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := debugFlags(tt.flags); !slices.Equal(got, tt.want) {
				t.Errorf("debugFlags(%q) = %q, want %q", tt.flags, got, tt.want)
			}
		})
	}
}
