package statecodec

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// TestRoundTrip: every value written is read back bit for bit.
func TestRoundTrip(t *testing.T) {
	w := NewWriter(nil)
	w.Tag("sec", 3)
	w.U8(7)
	w.Bool(true)
	w.U32(1 << 31)
	w.I64(-5)
	w.F64(math.Copysign(0, -1))
	w.F64s([]float64{math.NaN(), math.Inf(1), 1.5})
	w.I64s([]int64{-1, 0, 9})
	w.Bools([]bool{true, false})
	w.String("héllo")
	w.Bytes32([]byte{1, 2})
	r := NewReader(w.Bytes())
	r.Tag("sec", 3)
	if r.U8("u8") != 7 || !r.Bool("b") || r.U32("u32") != 1<<31 || r.I64("i") != -5 {
		t.Fatal("scalar mismatch")
	}
	if z := r.F64("z"); math.Float64bits(z) != math.Float64bits(math.Copysign(0, -1)) {
		t.Fatalf("-0 read as %v", z)
	}
	f := r.F64s("f", 3)
	if !math.IsNaN(f[0]) || !math.IsInf(f[1], 1) || f[2] != 1.5 {
		t.Fatalf("floats %v", f)
	}
	if i := r.I64s("i", 3, -1, 9); i[0] != -1 || i[2] != 9 {
		t.Fatalf("ints %v", i)
	}
	if b := r.Bools("b", 2); !b[0] || b[1] {
		t.Fatalf("bools %v", b)
	}
	if s := r.String("s", 10); s != "héllo" {
		t.Fatalf("string %q", s)
	}
	if b := r.Bytes32("b", 2); len(b) != 2 || b[1] != 2 {
		t.Fatalf("bytes %v", b)
	}
	if err := r.Done(); err != nil {
		t.Fatal(err)
	}
}

// TestReaderErrors: bad input is an error wrapping ErrCorrupt that names
// what was being read; the first error sticks; lengths are checked against
// the bytes left before anything is allocated.
func TestReaderErrors(t *testing.T) {
	huge := NewWriter(nil)
	huge.U32(math.MaxUint32) // a length claiming 4 billion values
	trailing := NewWriter(nil)
	trailing.U8(1)
	trailing.U8(2)
	tag := NewWriter(nil)
	tag.Tag("other", 1)
	version := NewWriter(nil)
	version.Tag("sec", 2)
	cases := []struct {
		name string
		in   []byte
		read func(r *Reader)
		want string
	}{
		{"truncated u64", []byte{1, 2, 3}, func(r *Reader) { r.U64("counter") }, "counter"},
		{"huge float list", huge.Bytes(), func(r *Reader) { r.F64sUpTo("values", math.MaxInt32) }, "values"},
		{"length above max", huge.Bytes(), func(r *Reader) { r.Bytes32("name", 10) }, "at most 10"},
		{"wrong count", []byte{2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, func(r *Reader) { r.F64s("obs", 3) }, "want 3"},
		{"bool not 0/1", []byte{2}, func(r *Reader) { r.Bool("flag") }, "flag"},
		{"int out of range", NewWriter([]byte{9, 0, 0, 0, 0, 0, 0, 0}).Bytes(), func(r *Reader) { r.Int("steps", 0, 5) }, "steps is 9"},
		{"trailing bytes", trailing.Bytes(), func(r *Reader) { r.U8("one") }, "unexpected bytes"},
		{"other section", tag.Bytes(), func(r *Reader) { r.Tag("sec", 1) }, `"other"`},
		{"other version", version.Bytes(), func(r *Reader) { r.Tag("sec", 1) }, "version 2"},
		{"sticky", []byte{1}, func(r *Reader) { r.U32("first"); r.U8("second") }, "first"},
	}
	for _, c := range cases {
		r := NewReader(c.in)
		c.read(r)
		err := r.Done()
		if err == nil || !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an ErrCorrupt mentioning %q", c.name, err, c.want)
		}
	}
}

// TestSealOpen: a sealed payload opens; every single-byte change and every
// truncation is refused with ErrCorrupt before the payload is returned; a
// wrong magic or version is named.
func TestSealOpen(t *testing.T) {
	w := NewWriter(nil)
	w.F32s([]float32{1.5, float32(math.Inf(-1))})
	b := Seal("TESTMAGC", 3, w.Bytes())
	p, err := Open(b, "test file", "TESTMAGC", 3)
	if err != nil {
		t.Fatal(err)
	}
	r := NewReader(p)
	if f := r.F32s("f", 2); f[0] != 1.5 || !math.IsInf(float64(f[1]), -1) || r.Done() != nil {
		t.Fatalf("payload %v, %v", f, r.Err())
	}
	for i := range b {
		bad := append([]byte(nil), b...)
		bad[i] ^= 0x10
		if _, err := Open(bad, "test file", "TESTMAGC", 3); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("byte %d changed: %v", i, err)
		}
		if _, err := Open(b[:i], "test file", "TESTMAGC", 3); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("truncated to %d: %v", i, err)
		}
	}
	for _, c := range []struct {
		magic   string
		version uint16
		want    string
	}{
		{"OTHERMGC", 3, "not a test file"},
		{"TESTMAGC", 4, "test file format version 3, this build reads version 4"},
	} {
		if _, err := Open(b, "test file", c.magic, c.version); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("magic %s version %d: %v, want %q", c.magic, c.version, err, c.want)
		}
	}
}

// UpdateChecksum chained over the pieces of a buffer, split anywhere, is
// the buffer's Checksum.
func TestUpdateChecksum(t *testing.T) {
	b := []byte("the checksum of every sealed encoding and of every session log record")
	for _, cuts := range [][]int{{}, {0}, {1}, {7, 8, 40}, {len(b)}} {
		crc, from := uint32(0), 0
		for _, c := range append(cuts, len(b)) {
			crc = UpdateChecksum(crc, b[from:c])
			from = c
		}
		if crc != Checksum(b) {
			t.Errorf("cut at %v: %08x, want %08x", cuts, crc, Checksum(b))
		}
	}
}
