package record

import (
	"bytes"
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

// TestCompressedTraces checks that a trace written under TraceSuffix is compressed, that the
// readers read it and the plain traces of earlier versions alike, under either name, and that
// a damaged compressed file is an error that names it.
func TestCompressedTraces(t *testing.T) {
	plain, err := os.ReadFile(filepath.Join("..", "web", "test", "fixtures", "bugs", "deadlock-0.trace.json"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := Parse("fixture", plain)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	gz := filepath.Join(dir, "deadlock-1"+TraceSuffix)
	if err := WriteFile(gz, want); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(gz)
	if !bytes.HasPrefix(data, []byte{0x1f, 0x8b}) || len(data) >= len(plain) {
		t.Fatalf("%s: %d bytes, not compressed (the plain trace has %d)", gz, len(data), len(plain))
	}
	old := filepath.Join(dir, "deadlock-2"+PlainTraceSuffix)
	renamed := filepath.Join(dir, "deadlock-3"+PlainTraceSuffix) // compressed, under the old name
	os.WriteFile(old, plain, 0o644)
	os.WriteFile(renamed, data, 0o644)
	for _, path := range []string{gz, old, renamed} {
		if !IsTrace(path) {
			t.Errorf("IsTrace(%s) = false", path)
		}
		tr, err := ReadTrace(path)
		if err != nil {
			t.Errorf("ReadTrace(%s): %v", path, err)
			continue
		}
		if tr.Verdict.Kind != want.(*Trace).Verdict.Kind || len(tr.Events) != len(want.(*Trace).Events) {
			t.Errorf("%s: verdict %s with %d events, want %s with %d", path, tr.Verdict.Kind, len(tr.Events), want.(*Trace).Verdict.Kind, len(want.(*Trace).Events))
		}
		if s, err := ReadSchedule(path); err != nil || len(s.Decisions) != len(want.(*Trace).Decisions) {
			t.Errorf("ReadSchedule(%s): %v, %d decisions", path, err, len(s.Decisions))
		}
	}
	if got := TraceName(gz); got != "deadlock-1" {
		t.Errorf("TraceName(%s) = %q", gz, got)
	}
	if got := TraceName(old); got != "deadlock-2" {
		t.Errorf("TraceName(%s) = %q", old, got)
	}
	cut := filepath.Join(dir, "cut"+TraceSuffix)
	os.WriteFile(cut, data[:len(data)/2], 0o644)
	if _, err := ReadTrace(cut); err == nil || !strings.Contains(err.Error(), cut) {
		t.Errorf("a truncated compressed trace: error %v, want one that names %s", err, cut)
	}
}

// TestIsExploration checks the names of a test's exploration file, compressed as heddle test
// writes it or plain as earlier versions did, and that the compressed one reads back.
func TestIsExploration(t *testing.T) {
	for name, want := range map[string]bool{
		ExplorationFile:      true,
		PlainExplorationFile: true,
		"/out/example.com/x/TestX/" + ExplorationFile: true,
		"bank.exploration.json":                       false,
		"deadlock-1" + TraceSuffix:                    false,
		"." + ExplorationFile + ".123":                false, // a write in progress
	} {
		if got := IsExploration(name); got != want {
			t.Errorf("IsExploration(%q) = %v, want %v", name, got, want)
		}
	}
	path := filepath.Join(t.TempDir(), ExplorationFile)
	e := &Exploration{Heddle: "exploration", Version: Version, Tree: []Node{}, Bugs: []Bug{}}
	if err := WriteFile(path, e); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil || len(data) < 2 || data[0] != 0x1f || data[1] != 0x8b {
		t.Fatalf("%s is not compressed: %v", path, err)
	}
	if v, err := ReadFile(path); err != nil {
		t.Fatal(err)
	} else if _, ok := v.(*Exploration); !ok {
		t.Errorf("%s read as %T", path, v)
	}
}
