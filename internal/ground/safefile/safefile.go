// Package safefile is how hyperctl touches the files it keeps: it reads
// the files it is handed (configs, checkpoints, run summaries) defensively,
// only regular files and only up to a size cap, so a path such as
// /dev/zero, a FIFO or a huge file is a clear error rather than a hang or
// an out-of-memory crash (ReadRegular); it replaces files atomically and
// durably (WriteAtomic, SyncDir); and it gives a folder one writer at a
// time (Acquire: the lock that run folders and `hyperctl serve --state`
// share). It is in the ground layer (internal/ground), below every other, so
// every layer may use it.
package safefile

import (
	"fmt"
	"io"
	"io/fs"
	"os"
)

// NotRegularError is the error for a path that is not a regular file.
type NotRegularError struct {
	Path string
	Kind string // what it is: "a character device", "a directory", ...
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is not a regular file (%s)", e.Path, e.Kind)
}

// TooLargeError is the error for a file larger than the cap.
type TooLargeError struct {
	Path string
	Size int64 // its size, or -1 when it grew past Max while being read
	Max  int64
}

func (e *TooLargeError) Error() string {
	if e.Size < 0 {
		return fmt.Sprintf("%s is too large: more than %d bytes", e.Path, e.Max)
	}
	return fmt.Sprintf("%s is too large: %d bytes, the limit is %d", e.Path, e.Size, e.Max)
}

// ReadRegular reads the regular file at path, of at most max bytes. A path
// that is not a regular file (a device, a FIFO, a directory) or a file
// larger than max is an error naming the path and what was found
// (*NotRegularError, *TooLargeError); a missing
// file is an error wrapping fs.ErrNotExist. The size is checked on the open
// file and again while reading, so a file that grows meanwhile is still
// capped.
func ReadRegular(path string, max int64) ([]byte, error) {
	// O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused
	// below.
	f, err := os.OpenFile(path, os.O_RDONLY|nonblock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &NotRegularError{Path: path, Kind: kind(st.Mode())}
	}
	if st.Size() > max {
		return nil, &TooLargeError{Path: path, Size: st.Size(), Max: max}
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(b)) > max {
		return nil, &TooLargeError{Path: path, Size: -1, Max: max}
	}
	return b, nil
}

func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "mode " + m.String()
}
