//go:build !unix

package safefile

const nonblock = 0
