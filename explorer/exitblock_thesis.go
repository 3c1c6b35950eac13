package explorer

// newExitBlockRWThesis returns ExitBlock-RW as the thesis measured it (Bruening, §2.4, Fig.
// 2.12, Tables 4.1 and 4.2): the read/write set of a block holds only the objects that stand
// for data in a Java program, so lock enters, wait and notify are neither reads nor writes
// (unlike exitblock-rw, which counts a lock enter as a write, the enhancement of §2.6). See
// docs/exitblock.md for how its counts compare with the tables.
func newExitBlockRWThesis() *exitBlockRW {
	b := newExitBlockRW(false)
	b.thesisData = true
	return b
}
