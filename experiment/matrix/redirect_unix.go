//go:build unix

package matrix

import (
	"os"

	"golang.org/x/sys/unix"
)

// redirectOutput points this process's stdout and stderr (file
// descriptors 1 and 2, so libtorch's C++ output too) at f until restore is
// called.
func redirectOutput(f *os.File) (restore func(), err error) {
	out, err := unix.Dup(1)
	if err != nil {
		return nil, err
	}
	errfd, err := unix.Dup(2)
	if err != nil {
		unix.Close(out)
		return nil, err
	}
	if err := unix.Dup2(int(f.Fd()), 1); err != nil {
		unix.Close(out)
		unix.Close(errfd)
		return nil, err
	}
	if err := unix.Dup2(int(f.Fd()), 2); err != nil {
		_ = unix.Dup2(out, 1)
		unix.Close(out)
		unix.Close(errfd)
		return nil, err
	}
	return func() {
		_ = unix.Dup2(out, 1)
		_ = unix.Dup2(errfd, 2)
		unix.Close(out)
		unix.Close(errfd)
	}, nil
}
