//go:build !unix

package matrix

import "os"

// redirectOutput: outside Unix only os.Stdout and os.Stderr are pointed at
// f (output written through file descriptors 1 and 2 directly is not).
func redirectOutput(f *os.File) (restore func(), err error) {
	out, errf := os.Stdout, os.Stderr
	os.Stdout, os.Stderr = f, f
	return func() { os.Stdout, os.Stderr = out, errf }, nil
}
