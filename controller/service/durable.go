package service

// This file holds the --state folder's low-level durability helpers, kept in
// one place so they can later be shared with the run folder's lock and
// checksums: an exclusive lock on a folder, CRC-32C framed records with a
// versioned header, and atomic file replacement.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/hyperctl/hyperctl/envs/wire"
)

// fileMode is the mode of every state file: the state may hold what a
// client considers private (its rewards and hyperparameters).
const fileMode = 0o600

// dirMode is the mode of state folders.
const dirMode = 0o700

// lockFile is the name of the lock file inside a locked folder.
const lockFile = "serve.lock"

// dirLock is an exclusive flock(2) on a folder's lock file, held for the
// life of the process (the kernel drops it when the process dies, kill -9
// included).
type dirLock struct {
	f *os.File
}

// lockDir takes the folder's lock without waiting. When another process
// holds it, the error names that process's pid, read from the lock file.
func lockDir(dir string) (*dirLock, error) {
	path := filepath.Join(dir, lockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, fileMode)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		b, _ := os.ReadFile(path)
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			holder := strings.TrimSpace(string(b))
			if _, perr := strconv.Atoi(holder); perr != nil || holder == "" {
				holder = "unknown"
			}
			return nil, fmt.Errorf("state folder %s is in use by another hyperctl serve (pid %s; lock %s)", dir, holder, path)
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if err := f.Truncate(0); err == nil {
		_, err = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
		if err == nil {
			err = f.Sync()
		}
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lock %s: write pid: %w", path, err)
		}
	} else {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return &dirLock{f: f}, nil
}

// release empties the pid and drops the lock.
func (l *dirLock) release() error {
	if l == nil || l.f == nil {
		return nil
	}
	_ = l.f.Truncate(0)
	err := syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.f = nil
	return err
}

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
	binary.LittleEndian.PutUint32(h[4:], wire.Checksum(payload))
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
	if wire.Checksum(payload) != binary.LittleEndian.Uint32(b[4:8]) {
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

// writeFileAtomic replaces path with data: it writes a temporary file in the
// same folder, fsyncs it, renames it over path and fsyncs the folder, so a
// crash leaves either the old file or the new one. With noSync the fsyncs
// are skipped (benchmarks only: not durable).
func writeFileAtomic(path string, data []byte, noSync bool) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err := f.Chmod(fileMode); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if !noSync {
		if err := f.Sync(); err != nil {
			return fmt.Errorf("write %s: fsync: %w", path, err)
		}
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	ok = true
	if noSync {
		return nil
	}
	return syncDir(dir)
}

// syncDir fsyncs a folder, making renames and creations in it durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("fsync %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("fsync %s: %w", dir, err)
	}
	return nil
}
