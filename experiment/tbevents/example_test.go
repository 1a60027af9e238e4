package tbevents_test

import (
	"fmt"
	"log"
	"os"
	"time"

	"github.com/hyperctl/hyperctl/experiment/tbevents"
)

// Scalars written at two steps, then read back with every record's CRC
// checked: the file starts with its version record.
func ExampleWriter() {
	dir, err := os.MkdirTemp("", "events")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	w, err := tbevents.Create(dir, now)
	if err != nil {
		log.Fatal(err)
	}
	for step, r := range []float64{-1.5, -0.25} {
		if err := w.Write(int64(2048*(step+1)), now.Add(time.Duration(step)*time.Second), tbevents.Scalar{Tag: "train/reward", Value: r}); err != nil {
			log.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	evs, err := tbevents.ReadFile(w.Path())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(evs[0].GetFileVersion())
	for _, ev := range evs[1:] {
		v := ev.GetSummary().GetValue()[0]
		fmt.Println(ev.GetStep(), v.GetTag(), v.GetSimpleValue())
	}
	// Output:
	// brain.Event:2
	// 2048 train/reward -1.5
	// 4096 train/reward -0.25
}
