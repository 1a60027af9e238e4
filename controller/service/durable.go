package service

// This file holds the --state folder's record framing: CRC-32C framed
// records (statecodec.Checksum) after a versioned header. The folder lock, atomic
// file replacement and folder fsync are the project's shared ones
// (internal/ground/safefile), as used by the run folders.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"

	"github.com/hyperctl/hyperctl/internal/ground/statecodec"
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
// zeros (see sessionFiles.appendObserved), so a zero length field with
// nothing but zeros after it is its clean end. A record that is not
// intact (a zero or oversized length, a bad checksum, cut short by the
// file's end) is one of three things:
//
//   - followed by an intact record: damage in the middle of the log, an
//     error naming the file and both offsets;
//   - the last record, and torn (tornTail): its length field, or the
//     length it gives, runs past the end of the file, as only a write
//     cut short leaves it (a write that never completed was never
//     acknowledged, since records are written one at a time, each after
//     the previous one was on disk). It is reported through torn, with
//     good the length of the intact prefix, for the caller to cut;
//   - the last record, and complete: the file holds every byte its
//     length field gives, and its checksum fails: damage (a flipped bit,
//     a bad sector), an error. It may be an acknowledged observation, so
//     it is never dropped, whatever its bytes are: zeros in a payload
//     (130 returns of 0) are data, not a sign of an unwritten sector.
//     etcd's WAL makes the same distinction (it repairs only a tail that
//     ends early, io.ErrUnexpectedEOF, and refuses a complete record
//     whose checksum fails).
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
			if err := tornTail(b, off); err != nil {
				return nil, 0, false, fmt.Errorf("%s: the last record, at byte %d, is damaged: %w; it is not a torn write, so it may be an acknowledged observation and is not dropped", path, off, err)
			}
			return frames, int64(off), true, nil
		}
		frames = append(frames, frame{off: int64(off), payload: payload})
		off += frameHeaderLen + len(payload)
	}
	return frames, int64(off), false, nil
}

// tornTail returns nil when the damaged last record at b[off:] is torn:
// cut short by the end of the file, inside its header or inside the
// payload its length field gives. The rule reads the framing only, never
// the values of the bytes. A length field that was damaged may make a
// complete record claim bytes past the file's end; its checksum, which
// still matches the bytes it was written with, tells it apart, and a
// length beyond any record's is damage too. Otherwise the record is
// complete and damaged, and the error says why.
func tornTail(b []byte, off int) error {
	rest := b[off:]
	if len(rest) < frameHeaderLen {
		return nil // the file ends inside the header
	}
	n := int64(binary.LittleEndian.Uint32(rest[:4]))
	sum := binary.LittleEndian.Uint32(rest[4:8])
	switch {
	case n == 0:
		return errors.New("its length field is zero but bytes after it are not")
	case n > maxRecord:
		return fmt.Errorf("its length field says %d bytes, more than a record holds (%d)", n, maxRecord)
	}
	if m := checksumPrefix(rest[frameHeaderLen:], sum); m > 0 && int64(m) != n {
		return fmt.Errorf("its length field says %d bytes, but its checksum matches its first %d (a damaged length)", n, m)
	}
	if n > int64(len(rest)-frameHeaderLen) {
		return nil // the file ends inside the record
	}
	return errors.New("it is complete (the file holds every byte its length field gives) but its checksum does not match")
}

// checksumPrefix returns the length m of the shortest prefix b[:m] (m >= 1,
// at most maxRecord) whose checksum is sum, or 0.
func checksumPrefix(b []byte, sum uint32) int {
	crc := uint32(0)
	for m := 1; m <= min(len(b), maxRecord); m++ {
		crc = statecodec.UpdateChecksum(crc, b[m-1:m])
		if crc == sum {
			return m
		}
	}
	return 0
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
