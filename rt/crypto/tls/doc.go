// Package tls is the instrumented counterpart of the standard package crypto/tls.
//
// The instrumenter makes instrumented code import this package in place of crypto/tls. It
// declares every exported name of crypto/tls, all of them the standard package's but Conn and
// what makes one (Client, Server, Dial, DialWithDialer, Dialer, Listen, NewListener). A Conn is
// the standard package's own *tls.Conn, whose handshake, records and alerts run unchanged over
// the connection it was given (in a run, one of heddle's virtual network), with its three locks
// taken first as locks of the run: the handshake's, the input's and the output's. crypto/tls
// holds its own sync.Mutex across a Read or Write of the connection beneath; two goroutines
// that meet on it would wait outside heddle's control, where under this package the second
// waits on the run's lock, a scheduling point, and the real lock is never contended. See
// docs/network.md.
package tls
