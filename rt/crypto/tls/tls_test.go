package tls_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	stdtls "crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"io"
	"math/big"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/heddledbg/heddle/rt"
	rttls "github.com/heddledbg/heddle/rt/crypto/tls"
	rtnet "github.com/heddledbg/heddle/rt/net"
)

type first struct{}

func (first) Choose(p *rt.Point) int { return 0 }

type last struct{}

func (last) Choose(p *rt.Point) int { return len(p.Alts) - 1 }

// certificate returns a self-signed certificate for 127.0.0.1 and localhost.
func certificate(t *testing.T) stdtls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "localhost"},
		DNSNames:     []string{"localhost"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return stdtls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// TestConn: TLS over the virtual network, where two goroutines meet on one of tls.Conn's
// locks (a handshake that a Read and a Write both start, two writers) and wait on the run's,
// so that every run ends with a verdict of the run rather than a wait outside control.
func TestConn(t *testing.T) {
	cert := certificate(t)
	server := &stdtls.Config{Certificates: []stdtls.Certificate{cert}}
	client := &stdtls.Config{InsecureSkipVerify: true}
	for _, tc := range []struct {
		name string
		body func() string // returns what went wrong, or ""
		want rt.VerdictKind
	}{
		{"read and write start the handshake", func() string {
			l, _ := rtnet.Listen("tcp", "127.0.0.1:0")
			defer l.Close()
			rt.Go(func() {
				c, _ := l.Accept()
				s := rttls.Server(c, server)
				io.Copy(s, s)
				s.Close()
			})
			raw, _ := rtnet.Dial("tcp", l.Addr().String())
			c := rttls.Client(raw, client)
			defer c.Close()
			got := rt.MakeChan[string](1)
			rt.Go(func() {
				b := make([]byte, 5)
				_, err := io.ReadFull(c, b)
				if err != nil {
					rt.Send(got, err.Error())
					return
				}
				rt.Send(got, string(b))
			})
			if _, err := c.Write([]byte("hello")); err != nil {
				return err.Error()
			}
			if s := rt.Recv(got); s != "hello" {
				return "read " + s
			}
			return ""
		}, rt.VerdictOK},
		{"two writers", func() string {
			l, _ := rttls.Listen("tcp", "127.0.0.1:0", server)
			defer l.Close()
			got := rt.MakeChan[string](1)
			rt.Go(func() {
				c, _ := l.Accept()
				b, _ := io.ReadAll(c)
				rt.Send(got, string(b))
			})
			c, err := rttls.Dial("tcp", l.Addr().String(), client)
			if err != nil {
				return err.Error()
			}
			done := rt.MakeChan[bool](0)
			rt.Go(func() {
				c.Write([]byte("a"))
				rt.Send(done, true)
			})
			c.Write([]byte("b"))
			rt.Recv(done)
			c.Close()
			if s := rt.Recv(got); s != "ab" && s != "ba" {
				return "read " + s
			}
			return ""
		}, rt.VerdictOK},
		{"dialer and state", func() string {
			l, _ := rttls.Listen("tcp", "localhost:0", server)
			defer l.Close()
			rt.Go(func() {
				c, _ := l.Accept()
				c.Write([]byte("x"))
				c.Close()
			})
			d := &rttls.Dialer{NetDialer: &rtnet.Dialer{}, Config: &stdtls.Config{RootCAs: pool(cert)}}
			c, err := d.Dial("tcp", l.Addr().String())
			if err != nil {
				return err.Error()
			}
			defer c.Close()
			// The certificate was verified for the name the dial inferred from the address.
			if !c.(*rttls.Conn).ConnectionState().HandshakeComplete {
				return "handshake not complete after the dial"
			}
			b, err := io.ReadAll(c)
			if string(b) != "x" || err != nil {
				return "read " + string(b)
			}
			return ""
		}, rt.VerdictOK},
		{"handshake fails", func() string {
			l, _ := rtnet.Listen("tcp", "127.0.0.1:0")
			defer l.Close()
			rt.Go(func() {
				c, _ := l.Accept()
				rttls.Server(c, server).Handshake()
				c.Close()
			})
			// Verifying a self-signed certificate without its root fails.
			_, err := rttls.Dial("tcp", l.Addr().String(), &stdtls.Config{})
			var verr *stdtls.CertificateVerificationError
			if !errors.As(err, &verr) {
				return "dial: " + errString(err) + ", want a certificate verification error"
			}
			return ""
		}, rt.VerdictOK},
	} {
		for _, ch := range []rt.Chooser{first{}, last{}} {
			t.Run(tc.name, func(t *testing.T) {
				var wrong string
				res := rt.Run(rt.Config{Chooser: ch}, func() { wrong = tc.body() })
				if res.Verdict.Kind != tc.want {
					t.Fatalf("verdict %s (%s), want %s", res.Verdict.Kind, res.Verdict.Message, tc.want)
				}
				if wrong != "" {
					t.Error(wrong)
				}
			})
		}
	}
}

func pool(cert stdtls.Certificate) *x509.CertPool {
	p := x509.NewCertPool()
	c, _ := x509.ParseCertificate(cert.Certificate[0])
	p.AddCert(c)
	return p
}

func errString(err error) string {
	if err == nil {
		return "no error"
	}
	return strings.TrimSpace(err.Error())
}
