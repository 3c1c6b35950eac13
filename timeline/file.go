package timeline

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// WriteFile writes v as indented JSON to path atomically: readers see the old file or the
// whole new one, never a part.
func WriteFile(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding %s: %w", path, err)
	}
	data = append(data, '\n')
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// ReadSchedule reads a schedule file, or the schedule of a trace file.
func ReadSchedule(path string) (*Schedule, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s, err := ParseSchedule(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// ReadTrace reads a trace file.
func ReadTrace(path string) (*Trace, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var t Trace
	if err := decode(data, "trace", &t); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &t, nil
}

// ParseSchedule decodes a schedule, or the schedule part of a trace, and validates it.
func ParseSchedule(data []byte) (*Schedule, error) {
	var head struct {
		Heddle string `json:"heddle"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, syntaxError(data, err)
	}
	var s *Schedule
	switch head.Heddle {
	case "schedule":
		s = new(Schedule)
		if err := decode(data, "schedule", s); err != nil {
			return nil, err
		}
	case "trace":
		var t Trace
		if err := decode(data, "trace", &t); err != nil {
			return nil, err
		}
		s = t.Schedule()
	case "":
		return nil, errors.New(`not a heddle file: missing "heddle" field`)
	default:
		return nil, fmt.Errorf(`"heddle": %q is not a schedule or a trace`, head.Heddle)
	}
	if _, _, err := s.Picks(); err != nil {
		return nil, err
	}
	return s, nil
}

// decode unmarshals a heddle file of the given kind, rejecting unknown fields and versions.
func decode(data []byte, kind string, v any) error {
	var head struct {
		Heddle  string `json:"heddle"`
		Version int    `json:"version"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return syntaxError(data, err)
	}
	if head.Heddle != kind {
		return fmt.Errorf(`"heddle": got %q, want %q`, head.Heddle, kind)
	}
	switch {
	case head.Version == 0:
		return errors.New(`"version": missing`)
	case head.Version > Version:
		return fmt.Errorf(`"version": %d is newer than this heddle understands (%d); upgrade heddle`, head.Version, Version)
	case head.Version < Version:
		return fmt.Errorf(`"version": %d is no longer supported (want %d)`, head.Version, Version)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return syntaxError(data, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("trailing data after the JSON object")
	}
	return nil
}

// syntaxError locates a JSON error by line and column.
func syntaxError(data []byte, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	off := int64(-1)
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
		if te.Field != "" {
			err = fmt.Errorf("field %q: %s is not valid for %s", te.Field, te.Value, te.Type)
		}
	}
	if off < 0 || off > int64(len(data)) {
		return err
	}
	line, col := 1, 1
	for _, b := range data[:off] {
		if b == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return fmt.Errorf("line %d, column %d: %w", line, col, err)
}
