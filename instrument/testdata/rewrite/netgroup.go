package p

import (
	"net"
	tcp "net"
)

// Listen and Dial go to a process group's sockets; other functions of net stay.
func serve() (net.Conn, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:7070")
	if err != nil {
		return nil, err
	}
	defer ln.Close()
	return ln.Accept()
}

func dial() (net.Conn, error) {
	_, _ = net.ResolveTCPAddr("tcp", "127.0.0.1:7070")
	return tcp.Dial("tcp", "127.0.0.1:7070")
}

// Every use of the import named tcp is rewritten: the import becomes blank.
var onlyDial = tcp.Dial
