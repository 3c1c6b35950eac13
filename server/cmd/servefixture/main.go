// Servefixture serves Heddle files through package server, for testing the
// web view in a browser.
//
// Usage:
//
//	servefixture [-port N] [-nodebugger] FILE...
//
// It loads each schedule, trace or exploration FILE, prints the web view's
// URL on the first line of its output, and then publishes each line of its
// standard input as a stream message (one JSON object per line). Each step
// the page asks to go to is printed as a line "goto N"; with -nodebugger no
// debugger is attached, as under heddle serve. It runs until it is
// interrupted.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/heddledbg/heddle/server"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("servefixture: ")
	port := flag.Int("port", 0, "port to listen on at 127.0.0.1 (0 picks one)")
	noDebugger := flag.Bool("nodebugger", false, "attach no debugger: the server refuses to go to steps")
	flag.Parse()

	s, err := server.New(server.Options{Port: *port, Session: "fixture"})
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range flag.Args() {
		if err := s.Load(f); err != nil {
			log.Fatal(err)
		}
	}
	var out sync.Mutex
	say := func(format string, args ...any) {
		out.Lock()
		defer out.Unlock()
		fmt.Printf(format+"\n", args...)
	}
	if !*noDebugger {
		s.OnGoto(func(step int) error {
			say("goto %d", step)
			return nil
		})
	}
	say("%s", s.URL())

	go func() {
		in := bufio.NewScanner(os.Stdin)
		in.Buffer(make([]byte, 1<<20), 1<<20)
		for in.Scan() {
			if len(in.Bytes()) == 0 {
				continue
			}
			if err := s.Publish([]byte(in.Text())); err != nil {
				log.Print(err)
			}
		}
	}()

	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	<-stop
	s.Close()
}
