package timeline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseSchedule(t *testing.T) {
	for _, tc := range []struct {
		name, data, err string
	}{
		{"ok", `{"heddle":"schedule","version":1,"program":{"package":"p","test":"T"},"decisions":[{"kind":"goroutine","pick":"G1.2"},{"kind":"select","pick":"1"}]}`, ""},
		{"trace", `{"heddle":"trace","version":1,"program":{},"decisions":[],"goroutines":[],"objects":[],"events":[],"verdict":{"kind":"ok"}}`, ""},
		{"not json", `{"heddle":`, "line 1, column 11"},
		{"no kind", `{"version":1}`, `heddle: missing: not a heddle file`},
		{"other kind", `{"heddle":"exploration","version":1}`, "is not a schedule or a trace"},
		{"newer", `{"heddle":"schedule","version":9,"decisions":[]}`, "newer than this heddle understands"},
		{"no version", `{"heddle":"schedule","decisions":[]}`, "version: missing"},
		{"unknown field", `{"heddle":"schedule","version":1,"decisions":[],"decisons":[]}`, `unknown field "decisons"`},
		{"bad kind", `{"heddle":"schedule","version":1,"decisions":[{"kind":"thread","pick":"G1"}]}`, `decisions[0].kind: unknown decision kind "thread"`},
		{"no pick", `{"heddle":"schedule","version":1,"decisions":[{"kind":"goroutine"}]}`, "decisions[0].pick: missing"},
		{"bad case", `{"heddle":"schedule","version":1,"decisions":[{"kind":"select","pick":"G1"}]}`, `decisions[0].pick: "G1" is not a number`},
		{"wrong type", "{\"heddle\":\"schedule\",\"version\":1,\n\"decisions\":{}}", "line 2"},
		{"trailing", `{"heddle":"schedule","version":1,"decisions":[]} {}`, "after top-level value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseSchedule([]byte(tc.data))
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("error = %v, want it to contain %q", err, tc.err)
			}
		})
	}
}

func FuzzParseSchedule(f *testing.F) {
	f.Add([]byte(`{"heddle":"schedule","version":1,"decisions":[{"kind":"goroutine","pick":"G1.2","of":["G1","G1.2"]}]}`))
	f.Add([]byte(`{"heddle":"trace","version":1,"decisions":[],"goroutines":[],"objects":[],"events":[{"step":0,"g":"G1","op":"go"}],"verdict":{"kind":"deadlock"}}`))
	f.Add([]byte(`{"heddle":"schedule","version":1,"decisions":[{"kind":"choose","pick":"-1"}]}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseSchedule(data)
		if err != nil {
			return
		}
		// A schedule that parses has picks a replay can use.
		if _, _, err := s.Picks(); err != nil {
			t.Fatalf("parsed schedule has bad picks: %v", err)
		}
	})
}

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a", "s.json")
	s := &Schedule{Heddle: "schedule", Version: Version, Decisions: []Decision{{Kind: "goroutine", Pick: "G1"}}}
	if err := WriteFile(path, s); err != nil {
		t.Fatal(err)
	}
	got, err := ReadSchedule(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Decisions) != 1 || got.Decisions[0].Pick != "G1" {
		t.Fatalf("round trip: got %+v", got)
	}
	ents, _ := os.ReadDir(filepath.Dir(path))
	if len(ents) != 1 {
		t.Fatalf("temporary files left behind: %v", ents)
	}
	// A failed write leaves the old file intact.
	if err := WriteFile(path, func() {}); err == nil {
		t.Fatal("writing an unencodable value succeeded")
	}
	if _, err := ReadSchedule(path); err != nil {
		t.Fatalf("old file damaged: %v", err)
	}
}

func TestReadScheduleNamesFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(path, []byte("{oops"), 0o644)
	_, err := ReadSchedule(path)
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("error %v does not name the file", err)
	}
}
