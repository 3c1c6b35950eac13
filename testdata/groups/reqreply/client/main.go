// Command client sends one request line to the server and waits for the reply.
package main

import (
	"log"
	"net"
)

const addr = "127.0.0.1:7070"

func main() {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := conn.Write([]byte("ping\n")); err != nil {
		log.Fatal(err)
	}
	reply := make([]byte, 64)
	n, err := conn.Read(reply)
	if err != nil {
		log.Fatal(err)
	}
	if got := string(reply[:n]); got != "re: ping\n" {
		log.Fatalf("reply %q", got)
	}
	conn.Close()
}
