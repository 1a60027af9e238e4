package service

// This file holds the --state folder's record framing: CRC-32C framed
// records (statecodec.Checksum) after a versioned header. The folder lock, atomic
// file replacement and folder fsync are the project's shared ones
// (configs/ground/safefile), as used by the run folders.

import (
	"encoding/binary"
	"fmt"
	"strconv"

	"github.com/hyperctl/hyperctl/configs/ground/statecodec"
)

// fileMode is the mode of every state file: the state may hold what a
// client considers private (its rewards and hyperparameters).
const fileMode = 0o600

// dirMode is the mode of state folders.
const dirMode = 0o700

// lockFile is the name of the --state folder's lock file (safefile.Acquire).
const lockFile = "serve.lock"

// A framed file starts with a header: 4 magic bytes and a little-endian
// uint32 format version. Records follow, each as a little-endian uint32
// payload length, the uint32 CRC-32C of the payload, then the payload.
const (
	headerLen      = 8
	frameHeaderLen = 8
	// maxRecord bounds one record's payload (a controller snapshot of the
	// largest method is well below).
	maxRecord = 256 << 20
)

// fileHeader returns a framed file's header.
func fileHeader(magic string, version uint32) []byte {
	h := make([]byte, headerLen)
	copy(h, magic)
	binary.LittleEndian.PutUint32(h[4:], version)
	return h
}

// checkHeader verifies a framed file's header; errors name the file.
func checkHeader(path string, b []byte, magic string, version uint32) error {
	if len(b) < headerLen || string(b[:4]) != magic {
		return fmt.Errorf("%s: not a %s file (bad header)", path, magicName(magic))
	}
	if v := binary.LittleEndian.Uint32(b[4:]); v != version {
		return fmt.Errorf("%s: format version %d, this hyperctl reads version %d", path, v, version)
	}
	return nil
}

func magicName(magic string) string {
	switch magic {
	case logMagic:
		return "session log"
	case snapMagic:
		return "session snapshot"
	}
	return strconv.Quote(magic)
}

// appendFrame appends one framed record to dst.
func appendFrame(dst, payload []byte) []byte {
	var h [frameHeaderLen]byte
	binary.LittleEndian.PutUint32(h[:4], uint32(len(payload)))
	binary.LittleEndian.PutUint32(h[4:], statecodec.Checksum(payload))
	return append(append(dst, h[:]...), payload...)
}

// frame is one record found by readFrames: its payload and the offset of
// its frame in the file.
type frame struct {
	off     int64
	payload []byte
}

// readFrames reads the records of b[start:]. The log is preallocated with
// zeros (see sessionFiles.appendObserved), so an all-zero rest is its clean
// end. A damaged record (short, a zero or oversized length, a bad checksum)
// after which no intact record follows is a torn write: the process or the
// machine died while appending it, before it was acknowledged (records are
// written one at a time, each after the previous one was on disk, into space
// that was zeros on disk). It is reported through torn, with good the length
// of the intact prefix. A damaged record followed by an intact one is an
// error naming the file and the offset: the damage is not a torn append.
func readFrames(path string, b []byte, start int) (frames []frame, good int64, torn bool, err error) {
	off := start
	for off < len(b) {
		rest := b[off:]
		if allZero(rest) {
			return frames, int64(off), false, nil
		}
		payload, ok := frameAt(rest)
		if !ok {
			if next := nextIntactFrame(b, off+1); next >= 0 {
				return nil, 0, false, fmt.Errorf("%s: record at byte %d is damaged (bad length or checksum) and an intact record follows at byte %d; refusing to guess", path, off, next)
			}
			return frames, int64(off), true, nil
		}
		frames = append(frames, frame{off: int64(off), payload: payload})
		off += frameHeaderLen + len(payload)
	}
	return frames, int64(off), false, nil
}

// frameAt returns the payload of the intact record at the start of b.
func frameAt(b []byte) ([]byte, bool) {
	if len(b) < frameHeaderLen {
		return nil, false
	}
	n := binary.LittleEndian.Uint32(b[:4])
	if n == 0 || n > maxRecord || int64(n) > int64(len(b)-frameHeaderLen) {
		return nil, false
	}
	payload := b[frameHeaderLen : frameHeaderLen+int(n)]
	if statecodec.Checksum(payload) != binary.LittleEndian.Uint32(b[4:8]) {
		return nil, false
	}
	return payload, true
}

// nextIntactFrame returns the offset of the first intact record starting at
// or after from, or -1.
func nextIntactFrame(b []byte, from int) int {
	for p := from; p+frameHeaderLen < len(b); p++ {
		if _, ok := frameAt(b[p:]); ok {
			return p
		}
	}
	return -1
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
