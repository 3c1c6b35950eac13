// Package racetest checks, with the race detector, that heddle gives it the happens-before
// edges of its synchronization (go test -race ./internal/racetest). Its programs are outside
// heddle's runtime packages, whose races the detector is told to leave out.
package racetest
