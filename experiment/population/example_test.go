package population_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/hyperctl/hyperctl/experiment/population"
)

// A log record is written sealed, its checksum last; a changed byte in it
// is refused with the file and line named.
func ExampleAppendGeneration() {
	out, err := os.MkdirTemp("", "population")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(out)
	score := -7.5
	rec := population.Record{Generation: 0, Event: population.EventReady, Member: 1, Frames: 256, Score: &score}
	if err := population.AppendGeneration(out, 0, []population.Record{rec}); err != nil {
		fmt.Println(err)
		return
	}
	path := filepath.Join(out, population.LogFile)
	b, _ := os.ReadFile(path)
	fmt.Print(string(b))
	b[10] = '#' // damage the record
	os.WriteFile(path, b, 0o644)
	_, err = population.ReadLog(out)
	fmt.Println(err != nil)
	// Output:
	// {"generation":0,"event":"ready","member":1,"frames":256,"score":-7.5,"crc32c":"5815624d"}
	// true
}
