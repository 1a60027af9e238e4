package statecodec_test

import (
	"errors"
	"fmt"

	"github.com/hyperctl/hyperctl/internal/ground/statecodec"
)

// A state is written field by field, sealed in a checksummed envelope, and
// read back with each field named, so that an error says which one failed.
// A flipped byte is caught by the checksum before any field is read.
func Example() {
	w := statecodec.NewWriter(nil)
	w.I64(1234)               // iteration
	w.F64s([]float64{0.5, 2}) // normaliser
	sealed := statecodec.Seal("EXAMPLE1", 1, w.Bytes())

	payload, err := statecodec.Open(sealed, "example state", "EXAMPLE1", 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	r := statecodec.NewReader(payload)
	iteration := r.Int("iteration", 0, 1<<40)
	norm := r.F64sUpTo("normaliser", 16)
	fmt.Println(iteration, norm, r.Done())

	sealed[12] ^= 1
	_, err = statecodec.Open(sealed, "example state", "EXAMPLE1", 1)
	fmt.Println(errors.Is(err, statecodec.ErrCorrupt), err)
	// Output:
	// 1234 [0.5 2] <nil>
	// true example state: invalid snapshot: checksum mismatch (stored bc3aba3a, computed 91943e35 over 38 bytes): corrupt or truncated
}
