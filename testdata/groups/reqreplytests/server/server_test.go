package server

import "testing"

func TestServe(t *testing.T) {
	var s Server
	if err := s.ServeOne(); err != nil {
		t.Fatal(err)
	}
}
