// Package timeline holds heddle's model of executions: schedules (the decisions that fix a
// run), traces (a schedule plus the steps observed along it and the verdict), and their
// versioned JSON files, described in docs/formats.md.
//
// Files are written atomically and read strictly: a malformed, unknown or newer file is
// rejected with an error that names the file and the field at fault.
package timeline
