package procgroup

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/heddledbg/heddle/internal/spawn"
	member "github.com/heddledbg/heddle/rt/member"
	"github.com/heddledbg/heddle/wire"
)

// A Member is a program of a group: an instrumented binary and the directory it runs in.
type Member struct {
	// Package is the member's import path.
	Package string
	Binary  string
	Dir     string
	// Test, if set, makes the member a test binary that runs this test.
	Test string
}

// proc is a member's process, which serves run after run until it dies.
type proc struct {
	name   string // P1, P2…
	m      Member
	cmd    *exec.Cmd
	enc    *json.Encoder
	in     *os.File
	out    *os.File
	msgs   chan received // the process's messages, read as they come
	gone   chan struct{} // closed by kill: the reader of msgs stops
	stderr *tail
	dead   error
}

type received struct {
	msg *member.Message
	err error
}

func start(name string, m Member) (*proc, error) {
	cmdR, cmdW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	msgR, msgW, err := os.Pipe()
	if err != nil {
		cmdR.Close()
		cmdW.Close()
		return nil, err
	}
	cmd := exec.Command(m.Binary)
	cmd.Dir = m.Dir
	cmd.Env = append(os.Environ(), wire.EnvGroup+"="+name)
	if m.Test != "" {
		cmd.Args = append(cmd.Args, wire.TestArgs(false)...)
		cmd.Env = append(cmd.Env, wire.EnvGroupTest+"="+m.Test)
	}
	p := &proc{name: name, m: m, cmd: cmd, in: cmdW, out: msgR, stderr: &tail{max: 16 << 10}}
	cmd.Stderr = p.stderr
	err = spawn.Start(cmd, cmdR, msgW)
	cmdR.Close()
	msgW.Close()
	if err != nil {
		cmdW.Close()
		msgR.Close()
		return nil, fmt.Errorf("starting %s (%s): %w", name, m.Package, err)
	}
	p.enc = json.NewEncoder(cmdW)
	p.msgs, p.gone = make(chan received, 1), make(chan struct{})
	go func() {
		defer close(p.msgs)
		dec := json.NewDecoder(bufio.NewReaderSize(msgR, 64<<10))
		for {
			var r received
			r.msg = new(member.Message)
			if r.err = dec.Decode(r.msg); r.err != nil {
				r.msg = nil
			}
			select {
			case p.msgs <- r:
			case <-p.gone:
				return
			}
			if r.err != nil {
				return
			}
		}
	}()
	return p, nil
}

func (p *proc) send(c *member.Command) error {
	if p.dead != nil {
		return p.dead
	}
	if err := p.enc.Encode(c); err != nil {
		return p.died(err)
	}
	return nil
}

// recv returns the process's next message. A process that sends nothing for hang is stuck:
// a goroutine that never reaches a scheduling point, or waits outside heddle's control. The
// member's own hang watchdog cannot tell that from a wait for the controller, which lasts as
// long as the other members run, so the controller keeps the watch and kills the process.
func (p *proc) recv(hang time.Duration) (*member.Message, error) {
	if p.dead != nil {
		return nil, p.dead
	}
	t := time.NewTimer(hang)
	defer t.Stop()
	select {
	case r, ok := <-p.msgs:
		if !ok {
			return nil, p.died(io.EOF)
		}
		if r.err != nil {
			return nil, p.died(r.err)
		}
		return r.msg, nil
	case <-t.C:
		p.kill()
		p.dead = &hangError{fmt.Sprintf("process %s (%s) made no step for %v: a goroutine in an infinite loop, or waiting outside heddle's control", p.name, p.m.Package, hang)}
		return nil, p.dead
	}
}

// hangError is a process that stopped making steps.
type hangError struct{ msg string }

func (e *hangError) Error() string { return e.msg }

// died records why the process can serve no more, from its exit status and the tail of its
// standard error.
func (p *proc) died(err error) error {
	if p.dead != nil {
		return p.dead
	}
	p.in.Close()
	if werr := p.cmd.Wait(); werr != nil {
		err = werr
	}
	msg := p.stderr.String()
	if i := bytes.LastIndexByte(bytes.TrimRight([]byte(msg), "\n"), '\n'); i >= 0 {
		msg = msg[i+1:]
	}
	p.dead = fmt.Errorf("process %s (%s) %v: %s", p.name, p.m.Package, err, bytes.TrimSpace([]byte(msg)))
	return p.dead
}

// quit asks the process to exit and makes sure it does.
func (p *proc) quit() {
	if p.dead == nil {
		p.send(&member.Command{Cmd: "quit"})
	}
	p.kill()
}

func (p *proc) kill() {
	spawn.Kill(p.cmd)
	select {
	case <-p.gone:
	default:
		close(p.gone)
	}
	p.in.Close()
	p.out.Close()
	if p.dead == nil {
		p.cmd.Wait()
		p.dead = fmt.Errorf("process %s was stopped", p.name)
	}
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if len(t.buf) > t.max {
		t.buf = t.buf[len(t.buf)-t.max:]
	}
	return len(b), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(bytes.ToValidUTF8(t.buf, nil))
}
