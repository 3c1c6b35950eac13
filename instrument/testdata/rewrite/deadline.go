package p

import (
	"net"
	"os"
	"time"
)

type logFile struct{ *os.File }

func deadlines(f *os.File, lf logFile, c net.Conn, ch chan time.Time) {
	f.SetReadDeadline(time.Now().Add(time.Second))
	f.SetWriteDeadline(<-ch)
	lf.SetDeadline(time.Time{})
	c.SetDeadline(time.Now()) // a net.Conn may be virtual: its deadline stays the virtual clock's
	set := f.SetDeadline      // a method value is left alone
	_ = set
}
