package service

// This file holds the --state folder's low-level durability helpers, kept in
// one place so they can later be shared with the run folder's lock and
// checksums: an exclusive lock on a folder, CRC-32C framed records with a
// versioned header, and atomic file replacement.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// castagnoli is the CRC-32C table (the checksum of ext4, iSCSI and LevelDB).
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

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
	binary.LittleEndian.PutUint32(h[4:], crc32.Checksum(payload, castagnoli))
	return append(append(dst, h[:]...), payload...)
}

// frame is one record found by readFrames: its payload and the offset of
// its frame in the file.
type frame struct {
	off     int64
	payload []byte
}

// readFrames reads the records of b[start:]. A damaged last record is a torn
// write (the process died while appending, before the record was
// acknowledged): it is reported through torn, with good the length of the
// intact prefix. A record is a torn tail when it extends past the end of the
// file, when it ends exactly at the end with a bad checksum, or when every
// byte from it on is zero (space allocated before its data reached the disk).
// Anything else damaged is an error naming the file and the offset.
func readFrames(path string, b []byte, start int) (frames []frame, good int64, torn bool, err error) {
	off := start
	for off < len(b) {
		rest := b[off:]
		if len(rest) < frameHeaderLen {
			return frames, int64(off), true, nil
		}
		n := binary.LittleEndian.Uint32(rest[:4])
		sum := binary.LittleEndian.Uint32(rest[4:8])
		end := frameHeaderLen + int64(n)
		if end > int64(len(rest)) {
			return frames, int64(off), true, nil
		}
		payload := rest[frameHeaderLen:end]
		if n == 0 || n > maxRecord || crc32.Checksum(payload, castagnoli) != sum {
			if end == int64(len(rest)) || allZero(rest) {
				return frames, int64(off), true, nil
			}
			return nil, 0, false, fmt.Errorf("%s: record at byte %d is damaged (checksum mismatch) and is not the last one; refusing to guess", path, off)
		}
		frames = append(frames, frame{off: int64(off), payload: payload})
		off += int(end)
	}
	return frames, int64(off), false, nil
}

func allZero(b []byte) bool {
	return len(b) > 0 && bytes.Count(b, []byte{0}) == len(b)
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
