// Package statecodec is the checked little-endian binary encoding of every
// state hyperctl saves: the environment snapshots (envs.Snapshot,
// envs.Vec.Snapshot and the environments' own state payloads), the
// trainer's snapshot (ppo.Trainer.Snapshot), the run folder's checkpoint
// file (package rundir) and the state files of `hyperctl serve`
// (controller/service). The encoded layouts are described by the packages
// that write them. It is in the ground layer (internal/ground), below every
// other, so every layer may use it.
//
// Every variable-length value carries its length, and a Reader checks each
// length against the bytes that remain before it allocates, so corrupt or
// truncated input gives an error, never a panic or an oversized allocation.
// A Reader keeps the first error (sticky) and returns zero values after it,
// so a decoder can read a whole layout and check Err once.
package statecodec

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
)

// Writer appends encoded values to a byte slice.
type Writer struct {
	buf []byte
}

// NewWriter returns a Writer that appends to buf (which may be nil).
func NewWriter(buf []byte) *Writer { return &Writer{buf: buf} }

// Bytes returns the encoded bytes.
func (w *Writer) Bytes() []byte { return w.buf }

// U8 writes one byte.
func (w *Writer) U8(v uint8) { w.buf = append(w.buf, v) }

// Bool writes 1 or 0.
func (w *Writer) Bool(v bool) {
	if v {
		w.U8(1)
	} else {
		w.U8(0)
	}
}

// U32 writes a uint32.
func (w *Writer) U32(v uint32) { w.buf = binary.LittleEndian.AppendUint32(w.buf, v) }

// U64 writes a uint64.
func (w *Writer) U64(v uint64) { w.buf = binary.LittleEndian.AppendUint64(w.buf, v) }

// I64 writes an int64.
func (w *Writer) I64(v int64) { w.U64(uint64(v)) }

// F64 writes the bits of a float64 (NaN payloads and -0 included).
func (w *Writer) F64(v float64) { w.U64(math.Float64bits(v)) }

// Len writes a length (a uint32).
func (w *Writer) Len(n int) { w.U32(uint32(n)) }

// Raw appends b without a length.
func (w *Writer) Raw(b []byte) { w.buf = append(w.buf, b...) }

// Bytes32 writes a length then the bytes.
func (w *Writer) Bytes32(b []byte) {
	w.Len(len(b))
	w.Raw(b)
}

// String writes a length then the string's bytes.
func (w *Writer) String(s string) {
	w.Len(len(s))
	w.buf = append(w.buf, s...)
}

// F64s writes a length then the values' bits.
func (w *Writer) F64s(v []float64) {
	w.Len(len(v))
	for _, x := range v {
		w.F64(x)
	}
}

// F32 writes the bits of a float32.
func (w *Writer) F32(v float32) { w.U32(math.Float32bits(v)) }

// F32s writes a length then the values' bits.
func (w *Writer) F32s(v []float32) {
	w.Len(len(v))
	for _, x := range v {
		w.F32(x)
	}
}

// I64s writes a length then the values.
func (w *Writer) I64s(v []int64) {
	w.Len(len(v))
	for _, x := range v {
		w.I64(x)
	}
}

// Bools writes a length then one byte per value.
func (w *Writer) Bools(v []bool) {
	w.Len(len(v))
	for _, x := range v {
		w.Bool(x)
	}
}

// Tag writes a section header: its name and layout version. Reader.Tag
// checks both, so a payload of the wrong kind or layout is named in the
// error.
func (w *Writer) Tag(name string, version uint8) {
	w.String(name)
	w.U8(version)
}

// ErrCorrupt is wrapped by every decoding error (envs.ErrSnapshot is the
// same value).
var ErrCorrupt = errors.New("invalid snapshot")

// Reader decodes values written by a Writer. The first error sticks.
type Reader struct {
	b   []byte
	off int
	err error
}

// NewReader reads b.
func NewReader(b []byte) *Reader { return &Reader{b: b} }

// Err is the first error met, or nil.
func (r *Reader) Err() error { return r.err }

// Fail records an error (the first one wins), wrapping ErrCorrupt.
func (r *Reader) Fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
	}
}

// Remaining is the number of unread bytes.
func (r *Reader) Remaining() int { return len(r.b) - r.off }

// Offset is the number of bytes read so far.
func (r *Reader) Offset() int { return r.off }

// Done checks that no error occurred and every byte was read.
func (r *Reader) Done() error {
	if r.err == nil && r.off != len(r.b) {
		r.Fail("%d unexpected bytes after the end at offset %d", len(r.b)-r.off, r.off)
	}
	return r.err
}

func (r *Reader) take(n int, what string) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b)-r.off {
		r.Fail("truncated reading %s at offset %d: need %d bytes, %d left", what, r.off, n, len(r.b)-r.off)
		return nil
	}
	p := r.b[r.off : r.off+n]
	r.off += n
	return p
}

// U8 reads one byte.
func (r *Reader) U8(what string) uint8 {
	p := r.take(1, what)
	if p == nil {
		return 0
	}
	return p[0]
}

// Bool reads a byte that must be 0 or 1.
func (r *Reader) Bool(what string) bool {
	v := r.U8(what)
	if v > 1 {
		r.Fail("%s is %d at offset %d, want 0 or 1", what, v, r.off-1)
		return false
	}
	return v == 1
}

// U32 reads a uint32.
func (r *Reader) U32(what string) uint32 {
	p := r.take(4, what)
	if p == nil {
		return 0
	}
	return binary.LittleEndian.Uint32(p)
}

// U64 reads a uint64.
func (r *Reader) U64(what string) uint64 {
	p := r.take(8, what)
	if p == nil {
		return 0
	}
	return binary.LittleEndian.Uint64(p)
}

// I64 reads an int64.
func (r *Reader) I64(what string) int64 { return int64(r.U64(what)) }

// F64 reads a float64.
func (r *Reader) F64(what string) float64 { return math.Float64frombits(r.U64(what)) }

// Int reads an int64 that must lie in [lo, hi].
func (r *Reader) Int(what string, lo, hi int64) int64 {
	v := r.I64(what)
	if r.err == nil && (v < lo || v > hi) {
		r.Fail("%s is %d, want a value in [%d, %d]", what, v, lo, hi)
		return 0
	}
	return v
}

// Len reads a length and checks it against max and against the bytes left
// (each element takes at least elem bytes).
func (r *Reader) Len(what string, max, elem int) int {
	n := int(r.U32(what + " length"))
	if r.err != nil {
		return 0
	}
	if n > max {
		r.Fail("%s has length %d, want at most %d", what, n, max)
		return 0
	}
	if elem > 0 && n > r.Remaining()/elem {
		r.Fail("truncated reading %s: %d elements of %d bytes, %d bytes left", what, n, elem, r.Remaining())
		return 0
	}
	return n
}

// Raw reads n bytes without a length (a view into the input).
func (r *Reader) Raw(what string, n int) []byte { return r.take(n, what) }

// Bytes32 reads a length-prefixed byte string of at most max bytes (a view
// into the input).
func (r *Reader) Bytes32(what string, max int) []byte {
	n := r.Len(what, max, 1)
	if r.err != nil {
		return nil
	}
	return r.take(n, what)
}

// String reads a length-prefixed string of at most max bytes.
func (r *Reader) String(what string, max int) string { return string(r.Bytes32(what, max)) }

// F64s reads a float64 list whose length must be exactly want.
func (r *Reader) F64s(what string, want int) []float64 { return exactList(r, what, want, 8, r.F64) }

// F32 reads a float32.
func (r *Reader) F32(what string) float32 { return math.Float32frombits(r.U32(what)) }

// F32s reads a float32 list whose length must be exactly want.
func (r *Reader) F32s(what string, want int) []float32 { return exactList(r, what, want, 4, r.F32) }

// exactList reads a length-prefixed list of elements of size bytes each,
// read one by one with read, whose length must be exactly want.
func exactList[T any](r *Reader, what string, want, size int, read func(string) T) []T {
	n := r.Len(what, want, size)
	if r.err != nil {
		return nil
	}
	if n != want {
		r.Fail("%s has %d values, want %d", what, n, want)
		return nil
	}
	out := make([]T, n)
	for i := range out {
		out[i] = read(what)
	}
	return out
}

// F64sUpTo reads a float64 list of at most max values.
func (r *Reader) F64sUpTo(what string, max int) []float64 {
	n := r.Len(what, max, 8)
	if r.err != nil {
		return nil
	}
	out := make([]float64, n)
	for i := range out {
		out[i] = r.F64(what)
	}
	return out
}

// I64s reads an int64 list whose length must be exactly want, each value in
// [lo, hi].
func (r *Reader) I64s(what string, want int, lo, hi int64) []int64 {
	return exactList(r, what, want, 8, func(what string) int64 { return r.Int(what, lo, hi) })
}

// Bools reads a bool list whose length must be exactly want.
func (r *Reader) Bools(what string, want int) []bool { return exactList(r, what, want, 1, r.Bool) }

// Tag reads a section header written by Writer.Tag and checks its name and
// version.
func (r *Reader) Tag(name string, version uint8) {
	got := r.String("section name", 64)
	v := r.U8("section version")
	if r.err != nil {
		return
	}
	if got != name {
		r.Fail("section %q where %q was expected", got, name)
		return
	}
	if v != version {
		r.Fail("section %q has layout version %d, this build reads version %d", name, v, version)
	}
}

// castagnoli is the CRC-32C table of the checksums.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Checksum is the CRC-32C (Castagnoli) of b, the checksum of every sealed
// encoding (Seal, and the environment snapshots' envelope).
func Checksum(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

// UpdateChecksum extends crc, the Checksum of some bytes a, to the
// Checksum of a followed by b (UpdateChecksum(0, b) is Checksum(b)), so
// that the checksums of every prefix of a buffer cost one pass.
func UpdateChecksum(crc uint32, b []byte) uint32 { return crc32.Update(crc, castagnoli, b) }

// SplitChecksum checks that b ends with the little-endian CRC-32C of the
// bytes before it and returns those bytes; a mismatch (or fewer than 4
// bytes) is an error wrapping ErrCorrupt that gives both sums.
func SplitChecksum(b []byte) ([]byte, error) {
	if len(b) < 4 {
		return nil, fmt.Errorf("%w: %d bytes, too short to hold a checksum", ErrCorrupt, len(b))
	}
	body := b[:len(b)-4]
	want, got := binary.LittleEndian.Uint32(b[len(b)-4:]), Checksum(body)
	if want != got {
		return nil, fmt.Errorf("%w: checksum mismatch (stored %08x, computed %08x over %d bytes): corrupt or truncated", ErrCorrupt, want, got, len(body))
	}
	return body, nil
}

// sealHeader is the length of Seal's header: the magic (8 bytes) and the
// format version (uint16).
const sealHeader = 8 + 2

// Seal wraps payload in a self-checking envelope:
//
//	[0:8]   magic (8 bytes, identifies what the payload is)
//	[8:10]  format version (uint16)
//	[10:n]  payload
//	[n:n+4] CRC-32C of every byte before it
//
// magic must be 8 bytes long.
func Seal(magic string, version uint16, payload []byte) []byte {
	if len(magic) != 8 {
		panic(fmt.Sprintf("statecodec: Seal: magic %q is not 8 bytes", magic))
	}
	w := NewWriter(make([]byte, 0, sealHeader+len(payload)+4))
	w.Raw([]byte(magic))
	w.buf = binary.LittleEndian.AppendUint16(w.buf, version)
	w.Raw(payload)
	w.U32(Checksum(w.buf))
	return w.buf
}

// Open checks an envelope written by Seal and returns its payload (a view
// into b). It checks, in this order, the length, the magic, the checksum
// over all the bytes and the format version, so any changed or missing byte
// is an error wrapping ErrCorrupt before the payload is looked at. what
// names the kind of content in the errors ("trainer snapshot").
func Open(b []byte, what, magic string, version uint16) ([]byte, error) {
	if len(b) < sealHeader+4 {
		return nil, fmt.Errorf("%w: %s of %d bytes, shorter than the %d-byte envelope", ErrCorrupt, what, len(b), sealHeader+4)
	}
	if string(b[:8]) != magic {
		return nil, fmt.Errorf("%w: no %q magic at the start: not a %s", ErrCorrupt, magic, what)
	}
	body, err := SplitChecksum(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if v := binary.LittleEndian.Uint16(body[8:10]); v != version {
		return nil, fmt.Errorf("%w: %s format version %d, this build reads version %d", ErrCorrupt, what, v, version)
	}
	return body[sealHeader:], nil
}
