package tbevents

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
)

// TFRecord framing, as TensorFlow's record_writer: each record is
//
//	uint64 length (little-endian)
//	uint32 masked CRC-32C of the 8 length bytes
//	length bytes of data
//	uint32 masked CRC-32C of the data
//
// where mask(c) = ((c >> 15) | (c << 17)) + 0xa282ead8 and CRC-32C is the
// Castagnoli polynomial.

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

const crcMaskDelta = 0xa282ead8

// MaskedCRC is the masked CRC-32C of b.
func MaskedCRC(b []byte) uint32 {
	c := crc32.Checksum(b, castagnoli)
	return ((c >> 15) | (c << 17)) + crcMaskDelta
}

// maxRecord bounds a record's length when reading (a corrupt length must
// not allocate gigabytes). hyperctl's records are a few hundred bytes.
const maxRecord = 64 << 20

// AppendRecord appends the framed record of data to dst.
func AppendRecord(dst, data []byte) []byte {
	var hdr [12]byte
	binary.LittleEndian.PutUint64(hdr[:8], uint64(len(data)))
	binary.LittleEndian.PutUint32(hdr[8:], MaskedCRC(hdr[:8]))
	dst = append(dst, hdr[:]...)
	dst = append(dst, data...)
	return binary.LittleEndian.AppendUint32(dst, MaskedCRC(data))
}

// ErrCorrupt reports a record whose length or data CRC does not match.
var ErrCorrupt = errors.New("tfrecord: CRC mismatch")

// RecordReader reads TFRecord-framed records and checks both CRCs.
type RecordReader struct {
	r   io.Reader
	off int64 // offset of the next record
	buf []byte
}

// NewRecordReader reads records from r.
func NewRecordReader(r io.Reader) *RecordReader { return &RecordReader{r: r} }

// Offset is the byte offset of the next record: after a successful Next,
// the end of the record returned.
func (rr *RecordReader) Offset() int64 { return rr.off }

// Next returns the next record's data, valid until the following call. It
// returns io.EOF at a clean end, io.ErrUnexpectedEOF for a record cut short
// (a writer killed mid-record), and ErrCorrupt for a CRC mismatch.
func (rr *RecordReader) Next() ([]byte, error) {
	var hdr [12]byte
	n, err := io.ReadFull(rr.r, hdr[:])
	if err == io.EOF {
		return nil, io.EOF
	}
	if err != nil {
		_ = n
		return nil, io.ErrUnexpectedEOF
	}
	if binary.LittleEndian.Uint32(hdr[8:]) != MaskedCRC(hdr[:8]) {
		return nil, fmt.Errorf("record at byte %d: length: %w", rr.off, ErrCorrupt)
	}
	size := binary.LittleEndian.Uint64(hdr[:8])
	if size > maxRecord {
		return nil, fmt.Errorf("record at byte %d: length %d exceeds %d: %w", rr.off, size, maxRecord, ErrCorrupt)
	}
	if cap(rr.buf) < int(size)+4 {
		rr.buf = make([]byte, int(size)+4)
	}
	b := rr.buf[:int(size)+4]
	if _, err := io.ReadFull(rr.r, b); err != nil {
		return nil, io.ErrUnexpectedEOF
	}
	data := b[:size]
	if binary.LittleEndian.Uint32(b[size:]) != MaskedCRC(data) {
		return nil, fmt.Errorf("record at byte %d: data: %w", rr.off, ErrCorrupt)
	}
	rr.off += 12 + int64(size) + 4
	return data, nil
}
