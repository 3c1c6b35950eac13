package rt

// Socket is a communication object that the process shares with the other processes of a
// group (package rt/member): a listener or one end of a connection. Its operations are
// scheduling points of the whole group, and whether one can proceed (a read needs buffered
// data or a closed peer, an accept a pending dial) depends on the other processes, which only
// the group's controller sees. So in this process they are always enabled, and the
// controller offers or withholds them (Stoller, "Model-checking multi-threaded distributed
// Java programs": a socket is a communication object, §2; every operation on one is visible,
// §2.3; and a transition is enabled when its guard, here the socket's state, holds, §2).
type Socket struct {
	objState
	// Key is the controller's name of the socket, which the process reports with every
	// alternative and step on it.
	Key string
}

// sockets maps the socket objects of the run in progress (of epoch) to their sockets.
var sockets struct {
	epoch uint64
	byObj map[ObjID]*Socket
}

// Op stops the calling goroutine before operation kind on s. When it returns, the goroutine
// has been picked to perform it, and does so through the controller. Outside a run it
// returns at once.
//
//go:norace
func (s *Socket) Op(kind OpKind) {
	r, g := current()
	if r == nil {
		return
	}
	id, fresh := r.touch(&s.objState, ObjSocket, g)
	if fresh {
		if sockets.epoch != r.epoch || sockets.byObj == nil {
			sockets.epoch, sockets.byObj = r.epoch, make(map[ObjID]*Socket)
		}
		sockets.byObj[id] = s
	}
	g.op = op{kind: kind, obj: id}
	r.yield(g)
	r.record(g, kind, id)
}

// SocketOf returns the socket that is object o of the latest run, or nil.
//
//go:norace
func SocketOf(o ObjID) *Socket {
	if sockets.epoch != epoch {
		return nil
	}
	return sockets.byObj[o]
}
