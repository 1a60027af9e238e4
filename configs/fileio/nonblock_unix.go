//go:build unix

package fileio

import "syscall"

const nonblock = syscall.O_NONBLOCK
